package jsonguard

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzNormalize: Normalize keeps valid JSON valid, makes it UTF-8, and
// encoding/json (kube-apiserver's reader) reads it as it read the input;
// Unstorable never fails and stops at its bound.
func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{`{"a":"b"}`, `["\ud800"]`, "[\"\xff\"]", `{"k\u0000":1e1000000}`, `["\\ud800\udc00"]`, `1.5e-400`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		out := Normalize(in)
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("Normalize(%q) = %q: not valid UTF-8 JSON", in, out)
		}
		var a, b any
		if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
			return // numbers beyond a float64
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("Normalize(%q) = %q: encoding/json reads %s, not %s", in, out, jb, ja)
		}
		if n := len(Unstorable(out, 3)); n > 3 {
			t.Fatalf("%d causes past the bound", n)
		}
		if quick, causes := storable(string(out)), walk(out, 1); quick != (len(causes) == 0) {
			t.Fatalf("storable(%q) = %v, the walk finds %v", out, quick, causes)
		}
	})
}
