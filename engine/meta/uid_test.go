package meta

import "testing"

func TestNewUID(t *testing.T) {
	a, b := NewUID(), NewUID()
	if len(a) != 36 || a[14] != '4' || a == b {
		t.Fatalf("NewUID = %q, %q", a, b)
	}
}
