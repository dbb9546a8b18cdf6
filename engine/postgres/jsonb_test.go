package postgres

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestFromJSONB(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"reorders and compacts",
			`{"kind": "Widget", "spec": {"a": [1, 2], "b": "x y"}, "metadata": {"name": "w"}, "apiVersion": "v1"}`,
			`{"apiVersion":"v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":[1,2],"b":"x y"}}`},
		{"keeps spaces and escapes inside strings",
			`{"s": "a, b: \"c d\" \\", "kind": "K"}`,
			`{"kind":"K","s":"a, b: \"c d\" \\"}`},
		{"no type meta", `{"b": 1, "a": {}}`, `{"b":1,"a":{}}`},
		{"empty", `{}`, `{}`},
		{"not an object", `[1, 2]`, `[1,2]`},
		{"unicode", `{"kind": "é ü", "x": "\u0000"}`, `{"kind":"é ü","x":"\u0000"}`},
		{"nested keys stay", `{"spec": {"kind": "x", "metadata": {}}, "kindness": 1, "kind": "K"}`,
			`{"kind":"K","spec":{"kind":"x","metadata":{}},"kindness":1}`},
		{"escapes at string ends", `{"a": "\\", "b": "\"", "kind": "\\\""}`, `{"kind":"\\\"","a":"\\","b":"\""}`},
		{"arrays of objects", `{"items": [{"kind": "a"}, {"kind": "b"}], "apiVersion": "v1"}`,
			`{"apiVersion":"v1","items":[{"kind":"a"},{"kind":"b"}]}`},
		{"string values at the top", `{"a": "x, \"y\": z", "metadata": {"name": "n"}}`, `{"metadata":{"name":"n"},"a":"x, \"y\": z"}`},
		{"scalar", `"a b"`, `"a b"`},
		{"metadata alone keeps its order", `{"uid": "u", "name": "w", "labels": {"kind": "k"}}`, `{"uid":"u","name":"w","labels":{"kind":"k"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(fromJSONB([]byte(tt.in))); got != tt.want {
				t.Fatalf("fromJSONB(%s)\n got  %s\n want %s", tt.in, got, tt.want)
			}
		})
	}
}

// BenchmarkFromJSONB reads a Widget as dynapi-bench's lists read them:
// jsonb's text of about 1.5 KB, with the managedFields of a create, and
// its metadata alone, as a metadata-only list reads it.
func BenchmarkFromJSONB(b *testing.B) {
	for _, name := range []string{"widget", "widget-metadata"} {
		in, err := os.ReadFile("testdata/" + name + ".jsonb")
		if err != nil {
			b.Fatal(err)
		}
		in = bytes.TrimSpace(in)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				fromJSONB(in)
			}
		})
	}
}

// FuzzFromJSONB checks that fromJSONB keeps any JSON value's meaning and
// compacts it as encoding/json does.
func FuzzFromJSONB(f *testing.F) {
	for _, seed := range []string{`{"kind": "K", "a": [1, {"b": "c d"}], "apiVersion": "v1"}`, `[1, "2"]`, `{}`, `{"s": "\\" \\\\"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out := fromJSONB([]byte(in))
		if !json.Valid(out) || !jsoneq.Equal(out, []byte(in)) {
			t.Fatalf("fromJSONB(%s) = %s", in, out)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(in)) == nil && compact.Len() != len(out) {
			t.Fatalf("fromJSONB(%s) = %s, not compact", in, out)
		}
	})
}
