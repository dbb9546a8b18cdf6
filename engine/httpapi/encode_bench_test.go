package httpapi

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// BenchmarkEncode measures negotiating and writing answers: one object
// and a list of 100, in JSON (the hot path: no Accept, or JSON) and in
// protobuf (client-go's typed clients' Accept).
//
//	go test -run NONE -bench Encode -benchmem ./engine/httpapi/
func BenchmarkEncode(b *testing.B) {
	obj, err := os.ReadFile("../kubeproto/testdata/objects/configmap.json")
	if err != nil {
		b.Fatal(err)
	}
	gvk := engine.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	s := &Server{}
	accepts := []struct{ name, accept string }{
		{"default", ""},
		{"json", "application/json"},
		{"protobuf", "application/vnd.kubernetes.protobuf, application/json"},
	}
	for _, a := range accepts {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps", nil)
		r.Header.Set("Accept", a.accept)
		w := &discardWriter{header: http.Header{}}
		b.Run("get/"+a.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, _ := negotiate(r, forObject, gvk)
				s.writeObject(w, r, f, http.StatusOK, obj, nil)
			}
		})
		b.Run("list100/"+a.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, _ := negotiate(r, forList, gvk)
				lw := newListWriter(w, f, nil, "v1", "ConfigMapList")
				for range 100 {
					_ = lw.add(obj)
				}
				_ = lw.finish(engine.ListMeta{ResourceVersion: 42})
			}
		})
	}
}
