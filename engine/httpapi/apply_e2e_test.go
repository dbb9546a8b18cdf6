package httpapi_test

import (
	"net/http"
	"testing"
)

// TestApplyWorksForCRDs walks Kubernetes' e2e spec "ServerSideApply should
// work for CRDs" (test/e2e/apimachinery/apply.go) step by step, with its
// definitions (testdata/kubeparity/definitions: Cron, served in
// v1beta1 and v1, and Atomic) and bodies, and asserts what it asserts.
func TestApplyWorksForCRDs(t *testing.T) {
	s := newFieldValidationServer(t)
	const (
		crons   = "/apis/mygroup.example.com/v1beta1/crons"
		cronsV1 = "/apis/mygroup.example.com/v1/crons"
		atomics = "/apis/mygroup.example.com/v1beta1/atomics"
	)
	cron := func(version, meta, spec string) string {
		return "apiVersion: mygroup.example.com/" + version + "\nkind: Cron\nmetadata:\n  name: mytest\n" + meta + "spec:\n" + spec
	}
	full := "  cronSpec: \"* * * * */5\"\n  replicas: 1\n  ports:\n  - name: x\n    containerPort: 80\n    protocol: TCP\n"
	applied := cron("v1beta1", "  finalizers:\n  - test-finalizer\n", full)
	atomic := func(item string) string {
		return "apiVersion: mygroup.example.com/v1beta1\nkind: Atomic\nmetadata:\n  name: mytest\nspec:\n  atomicList:\n  - " + item + "\n"
	}
	steps := []struct {
		name, method, path, contentType, body string
		code                                  int
		want                                  map[string]string // gjson path: raw JSON
	}{
		{"apply creates", http.MethodPatch, crons + "/mytest?fieldManager=apply_test", applyType, applied, http.StatusCreated,
			map[string]string{"metadata.finalizers": `["test-finalizer"]`, "spec.replicas": "1", "spec.ports.#": "1"}},
		{"apply through another version", http.MethodPatch, cronsV1 + "/mytest?fieldManager=apply_test", applyType, cron("v1", "", full), http.StatusOK,
			map[string]string{"spec.replicas": "1", "spec.ports.#": "1"}},
		{"merge patch adds a finalizer", http.MethodPatch, crons + "/mytest", "application/merge-patch+json",
			`{"metadata":{"finalizers":["test-finalizer","another-one"]}}`, http.StatusOK,
			map[string]string{"metadata.finalizers": `["test-finalizer","another-one"]`}},
		{"re-apply keeps it: finalizers are a set", http.MethodPatch, crons + "/mytest?fieldManager=apply_test", applyType, applied, http.StatusOK,
			map[string]string{"metadata.finalizers": `["test-finalizer","another-one"]`}},
		{"merge patch changes replicas", http.MethodPatch, crons + "/mytest", "application/merge-patch+json", `{"spec":{"replicas":5}}`, http.StatusOK,
			map[string]string{"spec.replicas": "5"}},
		{"re-apply conflicts", http.MethodPatch, crons + "/mytest?fieldManager=apply_test", applyType, applied, http.StatusConflict,
			map[string]string{"details.causes.#": "1"}},
		{"force takes it", http.MethodPatch, crons + "/mytest?fieldManager=apply_test&force=true", applyType, applied, http.StatusOK,
			map[string]string{"spec.replicas": "1"}},
		{"another applier edits a list item", http.MethodPatch, crons + "/mytest?fieldManager=apply_test_2", applyType,
			cron("v1beta1", "", "  ports:\n  - name: \"y\"\n    containerPort: 80\n    protocol: TCP\n"), http.StatusConflict,
			map[string]string{"details.causes.#": "1"}},
		{"another applier adds a list item", http.MethodPatch, crons + "/mytest?fieldManager=apply_test_2", applyType,
			cron("v1beta1", "", "  ports:\n  - name: \"y\"\n    containerPort: 8080\n    protocol: TCP\n"), http.StatusOK,
			map[string]string{"spec.ports.#": "2"}},
		{"update does not create", http.MethodPut, crons + "/should-not-exist?fieldManager=apply_test", "application/json",
			`{"apiVersion":"mygroup.example.com/v1beta1","kind":"Cron","metadata":{"name":"should-not-exist","finalizers":["test-finalizer"]},` +
				`"spec":{"cronSpec":"* * * * */5","replicas":1,"ports":[{"name":"x","containerPort":80}]},"protocol":"TCP"}`, http.StatusNotFound, nil},
		{"atomic list applied", http.MethodPatch, atomics + "/mytest?fieldManager=apply_test", applyType, atomic(`"item1"`), http.StatusCreated,
			map[string]string{"spec.atomicList": `["item1"]`}},
		{"atomic list replaced whole", http.MethodPatch, atomics + "/mytest?fieldManager=apply_test_2&force=true", applyType, atomic(`"item2"`), http.StatusOK,
			map[string]string{"spec.atomicList": `["item2"]`}},
	}
	for _, st := range steps {
		r := s.mustDo(st.code, st.method, st.path, st.contentType, st.body)
		for path, want := range st.want {
			if got := r.get(path).Raw; got != want {
				t.Fatalf("%s: %s = %s, want %s: %s", st.name, path, got, want, r)
			}
		}
	}
}
