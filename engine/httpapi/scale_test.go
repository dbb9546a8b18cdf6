package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestScale(t *testing.T) {
	s := newTestServer(t)
	s.create(labsWidgets, `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"sc"},"spec":{"port":80,"replicas":2}}`)
	s.mustDo(http.StatusOK, http.MethodPatch, labsWidgets+"/sc/status", "application/merge-patch+json", `{"status":{"readyReplicas":1,"selector":"app=sc"}}`)
	scale := s.mustDo(http.StatusOK, http.MethodGet, labsWidgets+"/sc/scale", "", "")
	rv := scale.get("metadata.resourceVersion").String()
	jsoneq.Assert(t, scale.get("@this|@pretty").Raw, `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"sc","namespace":"default",
		"uid":"`+scale.get("metadata.uid").String()+`","resourceVersion":"`+rv+`","creationTimestamp":"`+scale.get("metadata.creationTimestamp").String()+`"},
		"spec":{"replicas":2},"status":{"replicas":1,"selector":"app=sc"}}`)

	// PUT with the resourceVersion read: replicas change, nothing else.
	put := s.mustDo(http.StatusOK, http.MethodPut, labsWidgets+"/sc/scale", "application/json",
		`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"sc","resourceVersion":"`+rv+`"},"spec":{"replicas":5}}`)
	if put.get("spec.replicas").Int() != 5 || put.get("kind").String() != "Scale" || put.get("metadata.resourceVersion").String() == rv {
		t.Fatalf("put: %s", put)
	}
	obj := s.mustDo(http.StatusOK, http.MethodGet, labsWidgets+"/sc", "", "")
	if obj.get("spec.replicas").Int() != 5 || obj.get("spec.port").Int() != 80 || obj.get("status.readyReplicas").Int() != 1 || obj.get("metadata.generation").Int() != 2 {
		t.Fatalf("object after scale: %s", obj)
	}
	// A stale resourceVersion conflicts.
	wantStatus(t, s.do(http.MethodPut, labsWidgets+"/sc/scale", "application/json",
		`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"sc","resourceVersion":"`+rv+`"},"spec":{"replicas":6}}`), http.StatusConflict, "Conflict")

	// kubectl scale sends a merge patch; JSON patches work too.
	for _, p := range []struct{ typ, patch string }{
		{"application/merge-patch+json", `{"spec":{"replicas":7}}`},
		{"application/merge-patch+json", `{"spec":{"replicas":1,"replicas":7}}`}, // the last of duplicates wins
		{"application/strategic-merge-patch+json", `{"spec":{"replicas":8}}`},
		{"application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":9}]`},
	} {
		r := s.mustDo(http.StatusOK, http.MethodPatch, labsWidgets+"/sc/scale", p.typ, p.patch)
		if r.get("spec.replicas").Int() < 7 || r.get("status.replicas").Int() != 1 {
			t.Fatalf("patch %s: %s", p.typ, r)
		}
	}
	if r := s.mustDo(http.StatusOK, http.MethodGet, labsWidgets+"/sc", "", ""); r.get("spec.replicas").Int() != 9 {
		t.Fatalf("after patches: %s", r)
	}
	wantStatus(t, s.do(http.MethodPatch, labsWidgets+"/sc/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`),
		http.StatusUnprocessableEntity, "Invalid")
	wantStatus(t, s.do(http.MethodPatch, labsWidgets+"/sc/scale?fieldManager=x", "application/apply-patch+yaml", `{}`),
		http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	// A version without a scale subresource, or an object that is not there.
	wantStatus(t, s.do(http.MethodGet, widgets+"/sc/scale", "", ""), http.StatusNotFound, "NotFound")
	wantStatus(t, s.do(http.MethodGet, labsWidgets+"/none/scale", "", ""), http.StatusNotFound, "NotFound")

	disc := s.mustDo(http.StatusOK, http.MethodGet, "/apis/labs.example.com/v1alpha1", "", "")
	jsoneq.Assert(t, disc.get(`resources.#(name=="widgets/scale")`).Raw, `{"name":"widgets/scale","singularName":"","namespaced":true,
		"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}`)
}
