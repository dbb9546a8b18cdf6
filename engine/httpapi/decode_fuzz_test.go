package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"unicode/utf8"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kubeproto"
)

var bodyTypes = []string{"application/json", "application/yaml", kubeproto.MediaType}

// FuzzReadBody: a JSON, YAML or protobuf body is decoded into valid UTF-8
// JSON or refused with a 4xx code; never a panic, a 500 or a hang.
func FuzzReadBody(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, "a: 1\nb: [x, y]\n", `{"a":"\ud800\u0000"}`, "a: &a [*a, *a]\n",
		"{\"\xff\":1}", "- [[[[[[[[]]]]]]]]\n", "k8s\x00\x0a\x02\x0a\x00"} {
		for i := range bodyTypes {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, typ uint8) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", bodyTypes[int(typ)%len(bodyTypes)])
		out, _, err := readBody(r)
		if err != nil {
			if code := httpStatus[engine.ErrorCode(err)]; code < 400 || code >= 500 {
				t.Fatalf("readBody(%q): %v (%d)", body, err, code)
			}
			return
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("readBody(%q) = %q: not UTF-8 JSON", body, out)
		}
	})
}
