package resource

import (
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/schema"
)

// FuzzParseResourceVersion: a resourceVersion parses to a positive number
// or is refused with 422.
func FuzzParseResourceVersion(f *testing.F) {
	for _, seed := range []string{"", "1", "0", "-1", "9223372036854775807", "9223372036854775808", "1e3", " 1", "abc"} {
		f.Add(seed)
	}
	t := Target{Resource: &registry.Resource{}}
	f.Fuzz(func(tt *testing.T, s string) {
		rv, err := parseResourceVersion(t, &metav1.ObjectMeta{ResourceVersion: s})
		if err == nil && rv <= 0 || err != nil && engine.ErrorCode(err) != engine.CodeInvalid {
			tt.Fatalf("parseResourceVersion(%q) = %d, %v", s, rv, err)
		}
	})
}

// FuzzGenerationFromDiff: for any two objects without duplicate keys,
// where the managedFields shortcut's walk names every difference, it finds
// a change outside metadata and status exactly when the comparison the
// generation stage would otherwise run finds the objects unequal there.
func FuzzGenerationFromDiff(f *testing.F) {
	r, v := shippedWidget(f)
	for _, seed := range [][2]string{
		{`{"metadata":{"name":"a"},"spec":{"x":1}}`, `{"metadata":{"name":"a"},"spec":{"x":2}}`},
		{`{"spec":{"s":"é","n":1.5}}`, `{"spec":{"s":"\u00e9","n":1.50}}`},
		{`{"spec":{"o":{"a":true}}}`, `{"spec":{"o":{"a":true,"b":null}}}`},
		{`{"status":{"p":"x"},"spec":{}}`, `{"status":{"p":"y"},"spec":{"z":{}}}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	ignore := []string{"metadata", "status"}
	f.Fuzz(func(t *testing.T, old, obj []byte) {
		for _, doc := range [][]byte{old, obj} {
			if !gjson.ValidBytes(doc) || !gjson.ParseBytes(doc).IsObject() {
				return
			}
			if _, dups := schema.DropDuplicates(doc); len(dups) > 0 {
				return // the pipeline drops them before any stage compares
			}
		}
		_, _, diff, err := r.Fields.Shortcut(v.Name, "", old, nil, obj, nil, "m")
		if err != nil {
			t.Fatal(err)
		}
		if diff.Complete && diff.Outside(ignore...) == sameJSON(obj, old, ignore...) {
			t.Fatalf("%s → %s: the walk says changed=%v (%+v), the comparison equal=%v", old, obj, diff.Outside(ignore...), diff, sameJSON(obj, old, ignore...))
		}
	})
}
