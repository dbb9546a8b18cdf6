package resource

import (
	"os"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// TestWithManagedFields: the list is written where it lies or at the end
// of metadata, byte for byte what the object had around it, and removed
// when there is none.
func TestWithManagedFields(t *testing.T) {
	const mf = `[{"manager":"m"}]`
	tests := []struct {
		name, obj string
		mf        string // "": none
		want      string
	}{
		{"replaced", `{"metadata":{"name":"a","managedFields":[{"manager":"old"}],"uid":"u"},"spec":{}}`, mf,
			`{"metadata":{"name":"a","managedFields":` + mf + `,"uid":"u"},"spec":{}}`},
		{"added", `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, mf,
			`{"metadata":{"name":"a","managedFields":` + mf + `},"spec":{"managedFields":1}}`},
		{"added to empty metadata", `{"metadata":{ },"spec":{}}`, mf, `{"metadata":{ "managedFields":` + mf + `},"spec":{}}`},
		{"no metadata", `{"spec":{}}`, mf, `{"spec":{},"metadata":{"managedFields":` + mf + `}}`},
		{"removed", `{"metadata":{"name":"a","managedFields":[]},"spec":{}}`, "", `{"metadata":{"name":"a"},"spec":{}}`},
		{"none to remove", `{"metadata":{"name":"a"}}`, "", `{"metadata":{"name":"a"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mf []byte
			if tt.mf != "" {
				mf = []byte(tt.mf)
			}
			got, err := withManagedFields([]byte(tt.obj), mf)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestCutManagedFields: the list is cut off with its key and one comma,
// the rest of the object byte for byte as it was, and the object it was
// cut from is left as it is.
func TestCutManagedFields(t *testing.T) {
	const mf = `[{"manager":"m","fieldsV1":{"f:spec":{}}}]`
	tests := []struct {
		name, obj string
		want      string
		mf        string // "": none
	}{
		{"between", `{"metadata":{"name":"a","managedFields":` + mf + `,"uid":"u"},"spec":{}}`,
			`{"metadata":{"name":"a","uid":"u"},"spec":{}}`, mf},
		{"first", `{"metadata":{"managedFields":` + mf + `,"uid":"u"}}`, `{"metadata":{"uid":"u"}}`, mf},
		{"last", `{"metadata":{"name":"a","managedFields":` + mf + `}}`, `{"metadata":{"name":"a"}}`, mf},
		{"alone", `{"metadata":{"managedFields":` + mf + `},"spec":{}}`, `{"metadata":{},"spec":{}}`, mf},
		{"spaced", `{"metadata": {"name": "a" , "managedFields" : ` + mf + ` , "uid": "u"}}`,
			`{"metadata": {"name": "a"  , "uid": "u"}}`, mf},
		{"escaped key", `{"metadata":{"name":"a","managed\u0046ields":` + mf + `}}`, `{"metadata":{"name":"a"}}`, mf},
		{"empty list", `{"metadata":{"managedFields":[],"name":"a"}}`, `{"metadata":{"name":"a"}}`, `[]`},
		{"none", `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := []byte(tt.obj)
			rest, got, err := cutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(rest) != tt.want || string(got) != tt.mf || (got == nil) != (tt.mf == "") {
				t.Fatalf("got %s and %q\nwant %s and %q", rest, got, tt.want, tt.mf)
			}
			if string(obj) != tt.obj {
				t.Fatalf("the object changed: %s", obj)
			}
		})
	}
}

// TestGenerationFromDiff: where the managedFields shortcut's walk saw the
// whole update, its answer to "did anything but metadata (and status)
// change" is the comparison's, which the generation stage then skips.
func TestGenerationFromDiff(t *testing.T) {
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	r, v, _ := snap.Lookup("shop.example.com", "v1", "widgets")
	const old = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
		`"labels":{"app":"a"},"resourceVersion":"5","generation":2},"spec":{"color":"red","size":3,"description":"café",` +
		`"dimensions":{"width":1.5}},"status":{"phase":"Ready"}}`
	tests := []struct {
		name, from, to string
		complete       bool // the walk names every difference
	}{
		{"nothing", "", "", true},
		{"resourceVersion only", `"resourceVersion":"5"`, `"resourceVersion":"6"`, true},
		{"a scalar of spec", `"size":3`, `"size":4`, true},
		{"a nested scalar", `"width":1.5`, `"width":2.5`, true},
		{"the same string escaped", `"café"`, `"caf\u00e9"`, true},
		{"the same number written otherwise", `"size":3`, `"size":3.0`, true},
		{"a label", `"app":"a"`, `"app":"b"`, true},
		{"a label added", `"app":"a"`, `"app":"a","tier":"x"`, true},
		{"status, its own subresource", `"phase":"Ready"`, `"phase":"Failed"`, true},
		{"a member added to spec", `"size":3`, `"size":3,"tags":["x"]`, false},
		{"a member removed", `"size":3,`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := []byte(strings.Replace(old, tt.from, tt.to, 1))
			_, _, diff, err := r.Fields.Shortcut(v.Name, "", []byte(old), nil, obj, nil, "m")
			if err != nil {
				t.Fatal(err)
			}
			if diff.Complete != tt.complete {
				t.Fatalf("complete = %v, want %v (%+v)", diff.Complete, tt.complete, diff)
			}
			ignore := []string{"metadata", "status"}
			if diff.Complete && diff.Outside(ignore...) == sameJSON(obj, []byte(old), ignore...) {
				t.Fatalf("the walk says changed=%v, the comparison says equal=%v (%+v)",
					diff.Outside(ignore...), sameJSON(obj, []byte(old), ignore...), diff)
			}
		})
	}
}
