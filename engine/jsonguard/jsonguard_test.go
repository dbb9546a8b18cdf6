package jsonguard

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"unchanged", `{"a":"b\u00e9\ud83d\ude00"}`, `{"a":"b\u00e9\ud83d\ude00"}`},
		{"lone high", `{"a":"\ud800"}`, `{"a":"\ufffd"}`},
		{"lone low", `{"a":"x\uDC00y"}`, `{"a":"x\ufffdy"}`},
		{"high high low", `["\ud800\ud800\udc00"]`, `["\ufffd\ud800\udc00"]`},
		{"high at end", `"\ud800"`, `"\ufffd"`},
		{"escaped backslash", `["\\ud800"]`, `["\\ud800"]`},
		{"invalid byte", "{\"a\":\"\xff\xfe\"}", `{"a":"\ufffd\ufffd"}`},
		{"invalid key", "{\"\xc3\":1}", `{"\ufffd":1}`},
		{"truncated rune", "[\"\xe2\x82\"]", `["\ufffd\ufffd"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Normalize([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// encoding/json, which kube-apiserver decodes with, reads both alike.
			var a, b any
			if err := json.Unmarshal([]byte(tt.in), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(got), &b); err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("encoding/json reads %s, Normalize gives %s", ja, jb)
			}
		})
	}
}

func TestUnstorable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		paths    []string
	}{
		{"fine", `{"a":[1,2.5,-3e10,"x\\u0000"],"b":{"c":null}}`, nil},
		{"nul in string", `{"spec":{"x":"a\u0000b"}}`, []string{"spec.x"}},
		{"nul in key", `{"spec":{"a\u0000":"b"}}`, []string{`spec.a\u0000`}},
		{"nul in annotation key", `{"metadata":{"annotations":{"a.b/c\u0000":""}}}`, []string{`metadata.annotations[a.b/c\u0000]`}},
		{"array item", `{"a":[1,"\u0000"]}`, []string{"a[1]"}},
		{"huge integer", `{"n":` + strings.Repeat("9", 200000) + `}`, []string{"n"}},
		{"huge exponent", `{"n":1e1000000}`, []string{"n"}},
		{"negative huge", `{"n":-1.5e309}`, []string{"n"}},
		{"tiny exponent", `{"n":1e-1000000}`, []string{"n"}},
		{"long fraction", `{"n":1.` + strings.Repeat("0", 16383) + `}`, nil},
		{"too long fraction", `{"n":1.` + strings.Repeat("0", 16384) + `}`, []string{"n"}},
		{"exponent beyond int", `{"n":1e-99999999999999999999999}`, []string{"n"}},
		{"large but fine", `{"n":1.7e308,"m":1e-400}`, nil},
		{"digits and e in strings", `{"uid":"e9b3274d-1e9","e":"1e1000000","k":"\\u0000"}`, nil},
		{"nul after an escaped quote", `{"a":"\"\u0000"}`, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			causes := Unstorable([]byte(tt.in), 10)
			if got := storable(tt.in); got != (len(tt.paths) == 0) {
				t.Errorf("storable = %v, want %v", got, len(tt.paths) == 0)
			}
			var paths []string
			for _, c := range causes {
				paths = append(paths, c.Path)
				if len(c.Message) > 200 {
					t.Errorf("message too long: %d bytes", len(c.Message))
				}
			}
			if strings.Join(paths, "|") != strings.Join(tt.paths, "|") {
				t.Fatalf("paths %q, want %q (%v)", paths, tt.paths, causes)
			}
		})
	}
}

func TestUnstorableStopsAtMax(t *testing.T) {
	t.Parallel()
	doc := "[" + strings.Repeat(`"\u0000",`, 1000) + `"\u0000"]`
	if n := len(Unstorable([]byte(doc), 7)); n != 7 {
		t.Fatalf("%d causes, want 7", n)
	}
}
