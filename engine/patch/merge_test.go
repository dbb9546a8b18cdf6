package patch

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestMergePatch holds the walk to RFC 7386's examples (Appendix A) and to
// the cases of a Kubernetes object, each also to evanphx/json-patch's
// answer, which is kube-apiserver's.
func TestMergePatch(t *testing.T) {
	t.Parallel()
	managed := `"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-11-26T17:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:a":{}}}}]`
	tests := []struct{ name, obj, patch, want string }{
		// RFC 7386, Appendix A (those whose patch is an object: the others are refused, see TestMergePatchNotObject).
		{"A1 replace", `{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{"A2 add", `{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{"A3 delete", `{"a":"b"}`, `{"a":null}`, `{}`},
		{"A4 delete one", `{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{"A5 list by scalar", `{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{"A6 scalar by list", `{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{"A7 nested", `{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{"A8 list replaced whole", `{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{"A13 null kept where not patched", `{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{"A14 object over a list", `[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{"A15 nulls dropped from a new object", `{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// json-patch's (kube-apiserver's) answer where RFC 7386 is silent or differs.
		{"nulls in a new list's objects dropped", `{}`, `{"a":[{"b":null,"c":1},null]}`, `{"a":[{"c":1},null]}`},
		{"nulls kept in a list replacing an object", `{"a":{"x":1}}`, `{"a":[{"b":null}]}`, `{"a":[{"b":null}]}`},
		{"object over null", `{"a":null}`, `{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`},
		{"object over a scalar", `{"a":1}`, `{"a":{"b":{"c":null}}}`, `{"a":{"b":{}}}`},
		{"deleting what is absent", `{"a":1}`, `{"b":null}`, `{"a":1}`},
		{"empty patch", `{"a":1}`, `{}`, `{"a":1}`},
		{"empty object merges nothing", `{"a":{"b":1}}`, `{"a":{}}`, `{"a":{"b":1}}`},
		{"escaped key matches", `{"a":1}`, `{"\u0061":2}`, `{"a":2}`},
		{"escaped key in the object", `{"a\"b":1}`, `{"a\"b":null}`, `{}`},
		{"whitespace", " {\n \"a\" : { \"b\" : 1 } , \"c\" : [ 1 ] }\n", ` { "a" : { "d" : null , "e" : [ null ] } } `, `{"a":{"b":1,"e":[null]},"c":[1]}`},
		{"numbers as written", `{"a":1.50}`, `{"b":1e2}`, `{"a":1.50,"b":1e2}`},
		// Kubernetes objects.
		{"annotation added, managedFields untouched",
			`{"metadata":{"name":"w",` + managed + `},"spec":{"a":1}}`,
			`{"metadata":{"annotations":{"example.com/seq":"1"}}}`,
			`{"metadata":{"name":"w",` + managed + `,"annotations":{"example.com/seq":"1"}},"spec":{"a":1}}`},
		{"label with dots and slash removed",
			`{"metadata":{"labels":{"app.kubernetes.io/name":"x","a":"b"}}}`, `{"metadata":{"labels":{"app.kubernetes.io/name":null}}}`,
			`{"metadata":{"labels":{"a":"b"}}}`},
		{"managedFields cleared", `{"metadata":{"name":"w",` + managed + `}}`, `{"metadata":{"managedFields":[]}}`,
			`{"metadata":{"name":"w","managedFields":[]}}`},
		{"finalizers replaced whole", `{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["b"]}}`,
			`{"metadata":{"finalizers":["b"]}}`},
		{"resourceVersion dropped", `{"metadata":{"resourceVersion":"7","name":"w"}}`, `{"metadata":{"resourceVersion":null}}`,
			`{"metadata":{"name":"w"}}`},
		{"spec replaced by a scalar then status added", `{"spec":{"x":1}}`, `{"spec":"s","status":{"ready":true,"reason":null}}`,
			`{"spec":"s","status":{"ready":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mergePatch([]byte(tt.obj), []byte(tt.patch))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) || !jsoneq.Equal(got, []byte(tt.want)) {
				t.Errorf("mergePatch(%s, %s) = %s, want %s", tt.obj, tt.patch, got, tt.want)
			}
			if lib, err := jsonpatch.MergePatch([]byte(tt.obj), []byte(tt.patch)); err != nil || !jsoneq.Equal(lib, []byte(tt.want)) {
				t.Errorf("json-patch answers %s, %v; the table wants %s", lib, err, tt.want)
			}
		})
	}
}

// TestMergePatchUntouched: the members a patch does not reach are copied
// byte for byte, their spacing and number spelling included.
func TestMergePatchUntouched(t *testing.T) {
	t.Parallel()
	obj := `{"metadata":{"managedFields":[ {"manager" : "m", "n": 1.0} ],"name":"w"},"spec":{"big":"` + strings.Repeat("x", 100) + `"}}`
	got, err := mergePatch([]byte(obj), []byte(`{"metadata":{"name":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(obj, `"name":"w"`, `"name":"v"`, 1)
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestMergePatchNotObject: the patches of RFC 7386's Appendix A that are
// not objects are refused with kube-apiserver's 422, and one nested past
// encoding/json's depth with a 400.
func TestMergePatchNotObject(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, maxMergeDepth+2) + "null" + strings.Repeat("}", maxMergeDepth+2)
	tests := []struct {
		name, patch string
		want        engine.Code
	}{
		{"A9 list", `["c","d"]`, engine.CodeInvalid},
		{"A10 list over an object", `["c"]`, engine.CodeInvalid},
		{"A11 null", `null`, engine.CodeInvalid},
		{"A12 string", `"bar"`, engine.CodeInvalid},
		{"nested too deep", deep, engine.CodeBadRequest},
	}
	for _, tt := range tests {
		_, err := Merge([]byte(`{"a":{"b":"foo"}}`), []byte(tt.patch))
		if got := engine.ErrorCode(err); got != tt.want {
			t.Errorf("%s: code %v (%v), want %v", tt.name, got, err, tt.want)
		}
	}
}

// FuzzMergePatch: the walk on the bytes answers what evanphx/json-patch's
// MergePatch answers (kube-apiserver's merge), as jsoneq compares JSON,
// for an object and a patch object as the pipeline has them: valid JSON,
// without duplicated members.
func FuzzMergePatch(f *testing.F) {
	for _, seed := range []struct{ obj, patch string }{
		{`{"a":"b"}`, `{"a":null,"c":{"d":null}}`},
		{`{"a":{"b":[1,{"c":null}]},"e":null}`, `{"a":{"b":{"x":null}},"e":{"f":[{"g":null},null]}}`},
		{`{"metadata":{"labels":{"a.b/c":"d"},"managedFields":[{"manager":"m"}]}}`, `{"metadata":{"labels":{"a.b/c":null,"e":"f"}}}`},
		{`{"a\u0062":1,"c":{"d":"e"}}`, `{"ab":2,"c":"x","\u00e9":{"f":null}}`},
		{`{"a":{"x":1}}`, `{"a":[{"b":null}]}`},
	} {
		f.Add([]byte(seed.obj), []byte(seed.patch))
	}
	f.Fuzz(func(t *testing.T, obj, patch []byte) {
		if !isMergeInput(obj) || !isMergeInput(patch) {
			return
		}
		obj, _ = schema.DropDuplicates(obj)
		patch, _ = schema.DropDuplicates(patch)
		want, libErr := jsonpatch.MergePatch(obj, patch)
		got, err := mergePatch(obj, patch)
		switch {
		case libErr != nil && err == nil:
			return // json-patch's decoder refuses what the walk need not read (depth)
		case err != nil:
			t.Fatalf("mergePatch(%s, %s): %v; json-patch answers %s, %v", obj, patch, err, want, libErr)
		case !json.Valid(got) || !jsoneq.Equal(got, want):
			t.Fatalf("mergePatch(%s, %s)\n = %s\nwant %s (json-patch)", obj, patch, got, want)
		}
	})
}

// isMergeInput reports whether b is an object as the pipeline's merge
// gets it: valid JSON, normalized as jsonguard does a body at the edge (no
// byte that is not UTF-8, no lone surrogate escape: the filter leaves out
// every surrogate escape), so that keys mean the same to both decoders.
func isMergeInput(b []byte) bool {
	s := string(b)
	return json.Valid(b) && utf8.Valid(b) && isObjectText(strings.TrimLeft(s, " \t\r\n")) &&
		!strings.Contains(s, `\ud`) && !strings.Contains(s, `\uD`)
}
