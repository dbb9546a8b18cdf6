package openapi

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// appendJSON writes what json.Marshal writes, byte for byte.
func TestAppendJSONAsMarshal(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"plain strings", map[string]any{"b": "x", "a": "y z", "": ""}},
		{"strings json escapes", []any{"a\"b", `a\b`, "<tag>&", "tab\tnew\nline\x01", "é ✓ \u2028", "\xff bad", "\x7f"}},
		{"whole numbers", []any{0.0, math.Copysign(0, -1), 1.0, -253.0, 65535.0, 1e20, 1e21, 123456789012.0}},
		{"other numbers", []any{0.5, -1.25, 1e-7, 3.0e-300, 1e300, 12, int64(-3), json.Number("7")}},
		{"booleans and null", map[string]any{"t": true, "f": false, "n": nil}},
		{"nested", map[string]any{"properties": map[string]any{"spec": map[string]any{"type": "object",
			"required": []any{"b", "a"}, "enum": []string{"x", "<y>"}}}, "gvk": []any{map[string]string{"kind": "K", "group": ""}}}},
		{"empty and nil", map[string]any{"m": map[string]any{}, "s": []any{}, "nm": map[string]string(nil),
			"ns": []string(nil), "na": []any(nil)}},
		{"keys escaped and sorted", map[string]string{"b<": "1", "a\"": "2", "é": "3", "B": "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJSON(nil, tt.v)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("got %s (%v)\nwant %s", got, err, want)
			}
		})
	}
}

// What json.Marshal refuses, appendJSON refuses.
func TestAppendJSONRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), map[string]any{"a": math.Inf(1)}, []any{make(chan int)}} {
		if _, err := appendJSON(nil, v); err == nil {
			t.Errorf("%v: no error", v)
		}
	}
}
