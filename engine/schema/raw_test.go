package schema

import (
	"bytes"
	"testing"
)

func TestRawShared(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, spec(`"rawShared":{"type":"string"}`))
	shared := s.RawShared()
	if !bytes.Equal(shared, s.Raw()) {
		t.Fatalf("RawShared() = %s, want %s", shared, s.Raw())
	}
	if cap(shared) != len(shared) {
		t.Error("RawShared() has room to append: an append would write into the schema's bytes")
	}
}
