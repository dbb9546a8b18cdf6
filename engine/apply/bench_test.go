package apply

import (
	"strings"
	"testing"
)

// BenchmarkUpdate times Update alone on a ~1.2 KB object of a plain
// schema: a create, an update of a field its manager owns, an update that
// adds an annotation (the shortcuts' common cases; the pipeline's
// BenchmarkWriteManagedFields in engine/resource has the whole write);
// each also through kube-apiserver's FieldManager alone, as kube-apiserver
// records them.
func BenchmarkUpdate(b *testing.B) {
	k := NewKind(Spec{Group: "example.com", Kind: "Widget",
		Versions: []Version{{Name: "v1", Schema: []byte(plainWidgetSchema), Status: true}},
		Convert:  func(obj []byte, _, _ string) ([]byte, error) { return obj, nil }})
	obj := func(replicas, annotation string) []byte {
		return []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
			`"labels":{"app":"bench","tier":"backend"},"annotations":{"example.com/owner":"someone"` + annotation + `}},` +
			`"spec":{"replicas":` + replicas + `,"color":"green","tags":["` + strings.Repeat(`tag-abcdefgh","`, 60) + `x"]}}`)
	}
	created := obj("1", "")
	mf, err := k.Update("v1", "", nil, nil, created, nil, "bench")
	if err != nil || mf == nil {
		b.Fatal(mf, err)
	}
	// The stored object and its managedFields, apart, as the pipeline
	// carries them.
	for _, c := range []struct {
		name                  string
		live, liveFields, obj []byte
	}{
		{"create", nil, nil, created},
		{"owned", created, mf, obj("2", "")},
		{"annotate", created, mf, obj("1", `,"example.com/seq":"1"`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := k.Update("v1", "", c.live, c.liveFields, c.obj, nil, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/FieldManager", func(b *testing.B) { // what kube-apiserver runs on every write
			b.ReportAllocs()
			for b.Loop() {
				if _, err := k.Merge("v1", "", c.live, c.liveFields, c.obj, nil, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
