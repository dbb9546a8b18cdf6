package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// TestValidatingAdmissionPolicyVariables: Kubernetes' e2e spec "should
// allow expressions to refer variables.", on a CronTab custom resource
// for its Deployment: a variable built on another, both used by the
// validations; one replica is denied in kube's words, three are allowed,
// four (even) are denied, and another kind is not guarded.
func TestValidatingAdmissionPolicyVariables(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, e2eCronTabCRD)
	crontabs := "/apis/stable.e2e.example.com/v1/namespaces/default/crontabs"
	waitFor(t, http.StatusOK, crontabs, base)
	mustDo(t, http.StatusCreated, http.MethodPost, base+vapPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
"metadata":{"name":"policy.example.com"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["stable.e2e.example.com"],"apiVersions":["v1"],
"operations":["CREATE","UPDATE"],"resources":["crontabs"]}]},
"variables":[{"name":"replicas","expression":"object.spec.replicas"},{"name":"oddReplicas","expression":"variables.replicas % 2 == 1"}],
"validations":[{"expression":"variables.replicas > 1"},{"expression":"variables.oddReplicas"}]}}`)
	mustDo(t, http.StatusCreated, http.MethodPost, base+policyPaths["ValidatingAdmissionPolicyBinding"], `{"apiVersion":"admissionregistration.k8s.io/v1",
"kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"binding.example.com"},"spec":{"policyName":"policy.example.com","validationActions":["Deny"]}}`)
	cronTab := func(name string, replicas int) string {
		return fmt.Sprintf(`{"apiVersion":"stable.e2e.example.com/v1","kind":"CronTab","metadata":{"name":%q},"spec":{"replicas":%d}}`, name, replicas)
	}

	wait.Eventually(t, policyWait, func() (bool, string) { // the marker is denied
		code, out := send(t, http.MethodPost, base+crontabs+"?dryRun=All", cronTab("marker", 1))
		return code == http.StatusUnprocessableEntity, out
	})
	tests := []struct {
		name     string
		replicas int
		denial   string // "": created
	}{
		{"marker", 1, `crontabs.stable.e2e.example.com "marker" is forbidden: ValidatingAdmissionPolicy 'policy.example.com' with binding 'binding.example.com' denied request: failed expression: variables.replicas > 1`},
		{"replicated", 3, ""},
		{"even", 4, `crontabs.stable.e2e.example.com "even" is forbidden: ValidatingAdmissionPolicy 'policy.example.com' with binding 'binding.example.com' denied request: failed expression: variables.oddReplicas`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := send(t, http.MethodPost, base+crontabs, cronTab(tt.name, tt.replicas))
			switch {
			case tt.denial == "" && code != http.StatusCreated:
				t.Errorf("%d replicas: %d %s, want 201", tt.replicas, code, out)
			case tt.denial != "" && (code != http.StatusUnprocessableEntity || gjson.Get(out, "message").Str != tt.denial):
				t.Errorf("%d replicas: %d %s, want 422 %q", tt.replicas, code, out, tt.denial)
			}
		})
	}
	code, out := send(t, http.MethodPost, base+"/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other-kind"}}`)
	if code != http.StatusCreated || strings.Contains(out, "forbidden") {
		t.Errorf("another kind: %d %s, want 201", code, out)
	}
}
