package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestAdmissionPolicyAPI: the four kinds are stored with kube's defaults
// and refused as kube refuses them, with kube's field paths and texts
// (k8s.io/kubernetes pkg/apis/admissionregistration/validation, and the
// API operations of test/e2e/apimachinery/validatingadmissionpolicy.go).
func TestAdmissionPolicyAPI(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	vaps, bindings := policyPaths["ValidatingAdmissionPolicy"], policyPaths["ValidatingAdmissionPolicyBinding"]
	maps := policyPaths["MutatingAdmissionPolicy"]
	rules := `"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]}`
	vap := func(name, spec string) string {
		return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
	}
	tests := []struct {
		name, path, body string
		want             []string // causes as "field: message" substrings; none: created
	}{
		{"defaults stored", vaps, vap("ok", rules+`,"validations":[{"expression":"true"}]`), nil},
		{"reserved name", vaps, vap("p.static.k8s.io", rules+`,"validations":[{"expression":"true"}]`),
			[]string{`metadata.name: Invalid value: "p.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`}},
		{"no validations", vaps, vap("empty", rules),
			[]string{"spec.validations: Required value: validations or auditAnnotations must contain at least one item"}},
		{"no match constraints", vaps, vap("nomatch", `"validations":[{"expression":"true"}]`),
			[]string{"spec.matchConstraints: Required value"}},
		{"expression does not compile", vaps, vap("broken", rules+`,"validations":[{"expression":"object.x +"}]`),
			[]string{`spec.validations[0].expression: Invalid value: "object.x +": compilation failed: ERROR: <input>:1:11: Syntax error`}},
		{"variable unknown", vaps, vap("vars", rules+`,"variables":[{"name":"a","expression":"1"}],"validations":[{"expression":"variables.b > 0"}]`),
			[]string{`spec.validations[0].expression: Invalid value: "variables.b > 0": compilation failed: ERROR: <input>:1:10: undefined field 'b'`}},
		{"params without paramKind", vaps, vap("params", rules+`,"validations":[{"expression":"params.x"}]`),
			[]string{`spec.validations[0].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`}},
		{"binding actions", bindings, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b"},"spec":{"policyName":"ok","validationActions":["Deny","Warn"]}}`,
			[]string{"spec.validationActions: Invalid value: ", "must not contain both Deny and Warn"}},
		{"binding paramRef", bindings, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b"},"spec":{"policyName":"ok","validationActions":["Deny"],"paramRef":{"name":"x"}}}`,
			[]string{"spec.paramRef.parameterNotFoundAction: Required value"}},
		{"mutation type", maps, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"m"},"spec":{` + rules + `,"reinvocationPolicy":"Never","mutations":[{"patchType":"JSONPatch"}]}}`,
			[]string{"spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &rbacServer{t: t, base: s.base}
			if tt.want == nil {
				out := s.must(http.StatusCreated, "admin", "POST", tt.path, tt.body)
				if got := gjson.Get(out, "spec.failurePolicy").String(); got != "Fail" {
					t.Errorf("failurePolicy %q, want Fail: %s", got, out)
				}
				if got := gjson.Get(out, "spec.matchConstraints.matchPolicy").String(); got != "Equivalent" {
					t.Errorf("matchPolicy %q, want Equivalent: %s", got, out)
				}
				return
			}
			out := s.must(http.StatusUnprocessableEntity, "admin", "POST", tt.path, tt.body)
			for _, w := range tt.want {
				if !strings.Contains(gjson.Get(out, "message").String(), w) {
					t.Errorf("message %q, want %q", gjson.Get(out, "message").String(), w)
				}
			}
		})
	}
}
