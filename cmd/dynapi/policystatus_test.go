package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

const vapPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"

// e2eCronTabCRD is the e2e specs' crontabExampleCRD, in a group of its own.
const e2eCronTabCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.e2e.example.com"},
"spec":{"group":"stable.e2e.example.com","scope":"Namespaced","names":{"plural":"crontabs","singular":"crontab","kind":"CronTab"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
"properties":{"cronSpec":{"type":"string"},"image":{"type":"string"},"replicas":{"type":"integer"}}}}}}}]}}`

// checkedPolicy is a ValidatingAdmissionPolicy over resources of group
// with the validations given (a JSON list).
func checkedPolicy(name, group, version, resource, validations string) string {
	return fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":%q},
"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[%q],"apiVersions":[%q],"operations":["CREATE"],"resources":[%q]}]},
"validations":%s}}`, name, group, version, resource, validations)
}

// typeChecked waits until the policy's status says its current
// generation is type checked, and returns the policy.
func typeChecked(t *testing.T, base, name string) string {
	t.Helper()
	var obj string
	wait.Eventually(t, policyWait, func() (bool, string) {
		_, obj = httpGet(t, base+vapPath+"/"+name)
		gen := gjson.Get(obj, "metadata.generation").Int()
		return gjson.Get(obj, "status.typeChecking").Exists() && gjson.Get(obj, "status.observedGeneration").Int() == gen, obj
	})
	return obj
}

// warningsOf returns a policy's expression warnings as "fieldRef: warning".
func warningsOf(policy string) []string {
	var out []string
	for _, w := range gjson.Get(policy, "status.typeChecking.expressionWarnings").Array() {
		out = append(out, w.Get("fieldRef").Str+": "+w.Get("warning").Str)
	}
	return out
}

// TestValidatingAdmissionPolicyTypeChecking: Kubernetes' e2e specs
// "should type check a CRD" and "should type check validation
// expressions" (on a built-in kind, ConfigMap, for their Deployment),
// and a new generation checked again.
func TestValidatingAdmissionPolicyTypeChecking(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, e2eCronTabCRD)
	waitFor(t, http.StatusOK, "/apis/stable.e2e.example.com/v1/crontabs", base)

	tests := []struct {
		name, group, resource, validations string
		want                               []string // substrings of each warning, "fieldRef: text"
	}{
		{name: "correct-crd-policy", group: "stable.e2e.example.com", resource: "crontabs",
			validations: `[{"expression":"object.spec.replicas > 1"}]`},
		{name: "confused-crd-policy", group: "stable.e2e.example.com", resource: "crontabs",
			validations: `[{"expression":"object.spec.replicas > '1'"},{"expression":"object.spec.maxRetries < 10"}]`,
			want: []string{"spec.validations[0].expression: stable.e2e.example.com/v1, Kind=CronTab: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'",
				"spec.validations[1].expression: stable.e2e.example.com/v1, Kind=CronTab: ERROR: <input>:1:12: undefined field 'maxRetries'"}},
		{name: "correct-policy", resource: "configmaps",
			validations: `[{"expression":"size(object.metadata.name) > 1"}]`},
		{name: "confused-policy", resource: "configmaps",
			validations: `[{"expression":"object.metadata.name > 1","messageExpression":"'wants a longer name, got ' + object.metadata.generation"}]`,
			want: []string{"spec.validations[0].expression: /v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(string, int)'",
				"spec.validations[0].messageExpression: /v1, Kind=ConfigMap: ERROR: <input>:1:29: found no matching overload for '_+_' applied to '(string, int)'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustDo(t, http.StatusCreated, http.MethodPost, base+vapPath, checkedPolicy(tt.name, tt.group, "v1", tt.resource, tt.validations))
			got := warningsOf(typeChecked(t, base, tt.name))
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d: %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("warning %d = %q, want it to start %q", i, got[i], tt.want[i])
				}
			}
		})
	}

	// A new generation is checked again: the confusion fixed, no warning.
	if code, out := sendAs(t, http.MethodPatch, base+vapPath+"/confused-policy", "application/merge-patch+json",
		`{"spec":{"validations":[{"expression":"size(object.metadata.name) > 1"}]}}`); code != http.StatusOK {
		t.Fatalf("fix the policy: %d %s", code, out)
	}
	if got := typeChecked(t, base, "confused-policy"); gjson.Get(got, "metadata.generation").Int() != 2 || len(warningsOf(got)) != 0 {
		t.Errorf("after the fix: %s, want generation 2 observed without warnings", got)
	}
}

// TestValidatingAdmissionPolicyStatusOperations: the status parts of
// Kubernetes' e2e spec "should support ValidatingAdmissionPolicy API
// operations": discovery lists validatingadmissionpolicies/status, and
// /status is read, merge-patched and updated with conditions; a spec
// sent through /status is ignored and a bad condition refused with its
// field path.
func TestValidatingAdmissionPolicyStatusOperations(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	_, disc := httpGet(t, base+"/apis/admissionregistration.k8s.io/v1")
	var names []string
	for _, r := range gjson.Get(disc, "resources.#.name").Array() {
		names = append(names, r.Str)
	}
	if !slices.Contains(names, "validatingadmissionpolicies/status") || slices.Contains(names, "mutatingadmissionpolicies/status") {
		t.Errorf("discovery resources %q, want validatingadmissionpolicies/status (and no mutatingadmissionpolicies/status, as kube)", names)
	}

	mustDo(t, http.StatusCreated, http.MethodPost, base+vapPath, checkedPolicy("ops", "", "v1", "configmaps", `[{"expression":"true"}]`))
	// The status controller's first write comes after the create: wait for
	// it, so that the PUT below does not race it (a 409 otherwise).
	typeChecked(t, base, "ops")
	status := base + vapPath + "/ops/status"
	if got := mustDo(t, http.StatusOK, http.MethodGet, status, ""); gjson.Get(got, "kind").Str != "ValidatingAdmissionPolicy" {
		t.Errorf("GET /status: %s", got)
	}
	code, patched := sendAs(t, http.MethodPatch, status, "application/merge-patch+json",
		`{"spec":{"failurePolicy":"Ignore"},"status":{"conditions":[{"type":"PatchStatusFailed","status":"False","reason":"e2e","message":"Set from an e2e test","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}`)
	if code != http.StatusOK || gjson.Get(patched, `status.conditions.#(type=="PatchStatusFailed").reason`).Str != "e2e" ||
		gjson.Get(patched, "spec.failurePolicy").Str != "Fail" {
		t.Errorf("PATCH /status: %d %s, want the condition kept and the spec's failurePolicy Fail", code, patched)
	}
	updated := strings.Replace(patched, `"conditions":[`,
		`"conditions":[{"type":"StatusUpdateFailed","status":"False","reason":"E2E","message":"Set from an e2e test","lastTransitionTime":"2024-01-02T00:00:00Z"},`, 1)
	got := mustDo(t, http.StatusOK, http.MethodPut, status, updated)
	if !gjson.Get(got, `status.conditions.#(type=="StatusUpdateFailed")`).Exists() {
		t.Errorf("PUT /status: %s, want the condition StatusUpdateFailed", got)
	}
	code, refused := sendAs(t, http.MethodPatch, status, "application/merge-patch+json",
		`{"status":{"conditions":[{"type":"Bad","status":"Maybe","reason":"e2e","message":"m","lastTransitionTime":"2024-01-01T00:00:00Z"}],
"typeChecking":{"expressionWarnings":[{"fieldRef":"spec.validations[0","warning":"w"}]}}}`)
	var paths []string
	for _, c := range gjson.Get(refused, "details.causes").Array() {
		paths = append(paths, c.Get("field").Str)
	}
	if want := []string{"status.typeChecking.expressionWarnings[0].fieldRef", "status.conditions[0].status"}; code != http.StatusUnprocessableEntity || !slices.Equal(paths, want) {
		t.Errorf("bad status: %d %s, want 422 with causes at %q", code, refused, want)
	}
}
