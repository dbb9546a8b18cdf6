package schema

import (
	"runtime"
	"testing"
)

// A schema is compiled once while it is in use, whatever its key order
// and spacing: jsonb hands a stored definition back with its keys
// reordered, and versions often share one schema.
func TestCompileSharesTheSameContent(t *testing.T) {
	// Not parallel: it counts the package's compiles.
	tests := []struct {
		name, first, again string
		shared             bool
	}{
		{"same text", spec(`"cacheA":{"type":"string"}`), spec(`"cacheA":{"type":"string"}`), true},
		{"keys reordered, spaced", `{"type":"object","properties":{"cacheB":{"type":"integer","minimum":1}}}`,
			`{ "properties": { "cacheB": { "minimum": 1, "type": "integer" } }, "type": "object" }`, true},
		{"other content", spec(`"cacheC":{"type":"string"}`), spec(`"cacheC":{"type":"boolean"}`), false},
		{"numbers as written", spec(`"cacheD":{"type":"number","maximum":1}`), spec(`"cacheD":{"type":"number","maximum":1.0}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Compiles()
			first := mustCompile(t, tt.first)
			again := mustCompile(t, tt.again)
			want := int64(2)
			if tt.shared {
				want = 1
			}
			if got := Compiles() - before; (first == again) != tt.shared || got != want {
				t.Errorf("shared = %v after %d compiles, want %v after %d", first == again, got, tt.shared, want)
			}
			if !first.Equal(again) && tt.shared {
				t.Error("a shared schema is not Equal to itself")
			}
		})
	}
}

// A schema just compiled is found again even when nothing used it in the
// meantime and the collector ran: the check of a definition's write
// compiles what the controller loads moments later.
func TestCompileHoldsWhatItJustCompiled(t *testing.T) {
	// Not parallel: it counts the package's compiles.
	text := spec(`"cacheHeld":{"type":"string"}`)
	before := Compiles()
	mustCompile(t, text)
	runtime.GC()
	runtime.GC()
	mustCompile(t, text)
	if n := Compiles() - before; n != 1 {
		t.Errorf("%d compiles, want 1", n)
	}
}
