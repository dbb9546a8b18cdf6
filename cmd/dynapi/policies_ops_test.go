package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestAdmissionPolicyAPIOperations: Kubernetes' e2e specs "should
// support ValidatingAdmissionPolicy API operations", "... Binding API
// operations", and their MutatingAdmissionPolicy twins, for each kind:
// the group and version in discovery, create, get, list by label,
// merge patch (a larger resourceVersion), update, delete and
// deletecollection. (The status steps are
// TestValidatingAdmissionPolicyStatusOperations'.)
func TestAdmissionPolicyAPIOperations(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	_, groups := httpGet(t, base+"/apis")
	if !gjson.Get(groups, `groups.#(name=="admissionregistration.k8s.io").versions.#(version=="v1")`).Exists() {
		t.Fatalf("/apis lacks admissionregistration.k8s.io/v1: %s", groups)
	}
	if _, group := httpGet(t, base+"/apis/admissionregistration.k8s.io"); !gjson.Get(group, `versions.#(version=="v1")`).Exists() {
		t.Fatalf("/apis/admissionregistration.k8s.io lacks v1: %s", group)
	}
	_, resources := httpGet(t, base+"/apis/admissionregistration.k8s.io/v1")
	rules := `"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]}`
	tests := []struct {
		kind, plural, spec string
	}{
		{"ValidatingAdmissionPolicy", "validatingadmissionpolicies", `{` + rules + `,"validations":[{"expression":"true"}]}`},
		{"ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", `{"policyName":"p","validationActions":["Deny"]}`},
		{"MutatingAdmissionPolicy", "mutatingadmissionpolicies", `{` + rules + `,"reinvocationPolicy":"Never",
"mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{}"}}]}`},
		{"MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", `{"policyName":"p"}`},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			if !gjson.Get(resources, `resources.#(name=="`+tt.plural+`")`).Exists() {
				t.Fatalf("discovery lacks %s: %s", tt.plural, resources)
			}
			path := base + "/apis/admissionregistration.k8s.io/v1/" + tt.plural
			for _, name := range []string{"e2e-1", "e2e-2", "e2e-3"} {
				mustDo(t, http.StatusCreated, http.MethodPost, path, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"`+tt.kind+
					`","metadata":{"name":"`+name+`","labels":{"e2e":"ops"}},"spec":`+tt.spec+`}`)
			}
			read := mustDo(t, http.StatusOK, http.MethodGet, path+"/e2e-1", "")
			list := mustDo(t, http.StatusOK, http.MethodGet, path+"?labelSelector=e2e%3Dops", "")
			if n := gjson.Get(list, "items.#").Int(); n != 3 {
				t.Errorf("list by label: %d items, want 3", n)
			}
			code, patched := sendAs(t, http.MethodPatch, path+"/e2e-1", "application/merge-patch+json", `{"metadata":{"annotations":{"patched":"true"}}}`)
			if code != http.StatusOK || gjson.Get(patched, "metadata.annotations.patched").Str != "true" ||
				rv(patched) <= rv(read) {
				t.Errorf("patch: %d %s, want the annotation and a resourceVersion above %d", code, patched, rv(read))
			}
			toUpdate, err := sjson.Set(patched, "metadata.annotations.updated", "true")
			if err != nil {
				t.Fatal(err)
			}
			updated := mustDo(t, http.StatusOK, http.MethodPut, path+"/e2e-1", toUpdate)
			if gjson.Get(updated, "metadata.annotations.updated").Str != "true" {
				t.Errorf("update: %s", updated)
			}
			mustDo(t, http.StatusOK, http.MethodDelete, path+"/e2e-1", "")
			mustDo(t, http.StatusNotFound, http.MethodGet, path+"/e2e-1", "")
			mustDo(t, http.StatusOK, http.MethodDelete, path+"?labelSelector=e2e%3Dops", "")
			left := mustDo(t, http.StatusOK, http.MethodGet, path+"?labelSelector=e2e%3Dops", "")
			if n := gjson.Get(left, "items.#").Int(); n != 0 {
				t.Errorf("after deletecollection: %d left: %s", n, left)
			}
		})
	}
}

// rv is an object's resourceVersion as a number (dynapi's are).
func rv(obj string) int64 {
	n, _ := strconv.ParseInt(gjson.Get(obj, "metadata.resourceVersion").Str, 10, 64)
	return n
}
