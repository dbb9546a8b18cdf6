package httpapi_test

import (
	"net/http"
	"testing"
)

// TestNamespaceStatusKeepsMetadata is Kubernetes' conformance test
// "Namespaces should apply changes to a namespace status": metadata sent
// to a namespace's /status is kept with the status (the namespace status
// strategy), where a custom resource's /status keeps only the status.
func TestNamespaceStatusKeepsMetadata(t *testing.T) {
	s := newTestServer(t)
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"st"}}`)
	patch := `{"metadata":{"annotations":{"e2e-patched":"true"}},"status":{"conditions":[{"type":"StatusUpdate","status":"True","reason":"E2E","message":"Set from an e2e test"}]}}`
	r := s.mustDo(http.StatusOK, http.MethodPatch, "/api/v1/namespaces/st/status", "application/merge-patch+json", patch)
	got := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces/st", "", "")
	for _, obj := range []response{r, got} {
		if obj.get("metadata.annotations.e2e-patched").String() != "true" || obj.get("status.conditions.0.reason").String() != "E2E" ||
			obj.get("status.phase").String() != "Active" || obj.get("spec.finalizers.0").String() != "kubernetes" {
			t.Fatalf("want the annotation and condition kept, phase and spec unchanged: %s", obj)
		}
	}
	spec := s.mustDo(http.StatusOK, http.MethodPatch, "/api/v1/namespaces/st/status", "application/merge-patch+json", `{"spec":{"finalizers":[]}}`)
	if spec.get("spec.finalizers.0").String() != "kubernetes" {
		t.Fatalf("/status changed spec: %s", spec)
	}
}
