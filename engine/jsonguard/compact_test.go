package jsonguard

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactSeeds are the cases of TestCompact and the fuzzer's seeds: the
// usual compact body, whitespace in and out of strings, escapes, and what
// encoding/json refuses.
var compactSeeds = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a b"},"data":{"k":"v\"  \\"}}`,
	"{ \"a\" :\t[1, 2.5e3 ,\n\"x y\"] }\r\n",
	` "just a string" `, `[]`, `{}`, `0`, `-0.1e-7`, `true`, `null`,
	`{"a":1,}`, `[1 2]`, `{"a" 1}`, `01`, `1.`, `-`, `.5`, `1e`, `"\x"`, "\"tab\tin\"", `"unterminated`,
	`{"a":"b"} {"c":1}`, `nul`, `[`, `]`, ``, ` `, "\xef\xbb\xbf{}", `{"a":tru}`, `"\u12"`, `"\ud800"`, "[\"\xff\"]",
}

// TestCompact: Compact gives json.Compact's output and error, and returns
// a compact body without copying it.
func TestCompact(t *testing.T) {
	for _, in := range append(compactSeeds, strings.Repeat("[", maxDepth+1)+strings.Repeat("]", maxDepth+1),
		strings.Repeat("[", maxDepth)+strings.Repeat("]", maxDepth)) {
		sameAsEncodingJSON(t, []byte(in))
	}
	body := []byte(compactSeeds[0])
	out, err := Compact(body)
	if err != nil || &out[0] != &body[0] {
		t.Errorf("Compact of a compact body copied it (err %v)", err)
	}
}

// FuzzCompact: Compact and json.Compact accept the same documents, give
// the same bytes and the same errors.
func FuzzCompact(f *testing.F) {
	for _, seed := range compactSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(sameAsEncodingJSON)
}

func sameAsEncodingJSON(t *testing.T, in []byte) {
	var want bytes.Buffer
	wantErr := json.Compact(&want, in)
	got, err := Compact(in)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("Compact(%q): error %v, json.Compact's %v", in, err, wantErr)
	case err != nil && err.Error() != wantErr.Error():
		t.Fatalf("Compact(%q): error %q, json.Compact's %q", in, err, wantErr)
	case err == nil && !bytes.Equal(got, want.Bytes()):
		t.Fatalf("Compact(%q) = %q, json.Compact gives %q", in, got, want.Bytes())
	}
}
