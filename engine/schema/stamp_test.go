package schema

import "testing"

func TestDefaultsStamp(t *testing.T) {
	t.Parallel()
	compile := func(src string) *Schema {
		t.Helper()
		s, err := Compile([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	without := compile(`{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string"}}}}}`)
	same := compile(`{"properties": {"spec": {"properties": {"color": {"type": "string"}}, "type": "object"}}, "type": "object"}`)
	with := compile(`{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string","default":"red"}}}}}`)
	if without.DefaultsStamp() == 0 || without.DefaultsStamp() != same.DefaultsStamp() {
		t.Errorf("the same schema, spaced and ordered otherwise: stamps %x and %x", without.DefaultsStamp(), same.DefaultsStamp())
	}
	if without.DefaultsStamp() == with.DefaultsStamp() {
		t.Errorf("a schema with a default more has the same stamp %x", with.DefaultsStamp())
	}
	old := []byte(`{"spec":{}}`) // written before spec.color had a default
	tests := []struct {
		name        string
		stamp       uint64 // as stored
		wantDefault bool
	}{
		{"unknown stamp", 0, true},
		{"stamped under the schema before", without.StampOf(old), true},
		{"stamped under this schema", with.StampOf([]byte(`{"spec":{"color":"blue"}}`)), false},
	}
	for _, tt := range tests {
		out, changed := with.DefaultStoredStamped(old, tt.stamp)
		if changed != tt.wantDefault || (changed && string(out) != `{"spec":{"color":"red"}}`) {
			t.Errorf("%s: DefaultStoredStamped = %s, %v; want the default: %v", tt.name, out, changed, tt.wantDefault)
		}
	}
	if got := with.StampOf(old); got != 0 {
		t.Errorf("StampOf an object that lacks a default = %x, want 0", got)
	}
}
