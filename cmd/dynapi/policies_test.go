package main

import (
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/internal/wait"
)

// policyPaths are the collection paths of the policy kinds.
var policyPaths = map[string]string{
	"ValidatingAdmissionPolicy":        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
	"ValidatingAdmissionPolicyBinding": "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
	"MutatingAdmissionPolicy":          "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies",
	"MutatingAdmissionPolicyBinding":   "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings",
}

// createPolicies creates every document of a testdata/policies file as
// admin.
func createPolicies(t *testing.T, base, file string) {
	t.Helper()
	data, err := os.ReadFile("testdata/policies/" + file)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		kind := strings.TrimSpace(strings.SplitN(strings.SplitN(doc, "kind: ", 2)[1], "\n", 2)[0])
		code, _, out := sendAsUser(t, base, "admin", "POST", policyPaths[kind], "application/yaml", doc)
		if code != http.StatusCreated {
			t.Fatalf("create %s from %s: %d %s", kind, file, code, out)
		}
	}
}

// sendAsUser makes a request as user and returns the status, the Warning
// headers and the body.
func sendAsUser(t *testing.T, base, user, method, path, contentType, body string) (int, []string, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+user+"-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Values("Warning"), string(out)
}

func configMapWith(name, data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":` + data + `}`
}

// policyWait is how long a policy created through the API may take to
// reach the process: its watch event (well under a second).
const policyWait = 5 * time.Second

// TestAdmissionPolicies: a ValidatingAdmissionPolicy with params refuses
// a write in kube's words, Warn reaches the client, Audit and audit
// annotations reach the audit log, and a MutatingAdmissionPolicy's two
// mutation types shape the stored object.
func TestAdmissionPolicies(t *testing.T) {
	dir := t.TempDir()
	logPath := dir + "/audit.log"
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{
		TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC,
		AuditPolicyFile: secretFile(t, dir, "policy.yaml", []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")),
		AuditLog:        audit.Options{Path: logPath}}})
	base := "http://" + m.Addr()
	s := &rbacServer{t: t, base: base}
	cms := "/api/v1/namespaces/default/configmaps"
	s.must(http.StatusCreated, "admin", "POST", cms, configMapWith("limits", `{"maxKeys":"2"}`))
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"unlimited"}}`)
	// vap-params.yaml last: each kind's events reach the process in order,
	// so once its policy denies, the others are in force too.
	createPolicies(t, base, "vap-actions.yaml")
	createPolicies(t, base, "map.yaml")
	createPolicies(t, base, "vap-params.yaml")

	// No params in that namespace: parameterNotFoundAction Deny.
	wait.Eventually(t, policyWait, func() (bool, string) {
		code, _, out := sendAsUser(t, base, "admin", "POST", "/api/v1/namespaces/unlimited/configmaps", "application/json", configMapWith("early", `{"a":"1"}`))
		return code == http.StatusUnprocessableEntity && strings.Contains(out,
			"ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"), out
	})
	s.must(http.StatusCreated, "admin", "POST", cms, configMapWith("small", `{"a":"1","b":"2"}`))
	out := s.must(http.StatusUnprocessableEntity, "admin", "POST", cms, configMapWith("big", `{"a":"1","b":"2","c":"3"}`))
	want := `configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys' denied request: a ConfigMap holds at most 2 keys, not 3`
	if gjson.Get(out, "message").String() != want || gjson.Get(out, "reason").String() != "Invalid" {
		t.Errorf("denial %s, want message %q", out, want)
	}

	front := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"front","labels":{"tier":"front"}},"spec":{"color":"green","size":3}}`
	code, warnings, out := sendAsUser(t, base, "admin", "POST", "/apis/shop.example.com/v1/namespaces/default/widgets", "application/json", front)
	wantWarning := `299 - "Validation failed for ValidatingAdmissionPolicy 'small-widgets' with binding 'small-widgets-warn': widgets should be small"`
	if code != http.StatusCreated || len(warnings) != 1 || warnings[0] != wantWarning {
		t.Errorf("Warn: %d %q %s, want 201 with %s", code, warnings, out, wantWarning)
	}

	wait.Eventually(t, policyWait, func() (bool, string) { // a dry run is mutated too
		_, _, out := sendAsUser(t, base, "admin", "POST", cms+"?dryRun=All", "application/json", configMapWith("stamped", `{"a":"1"}`))
		return gjson.Get(out, "data.stamp").Exists(), out
	})
	stamped := s.must(http.StatusCreated, "admin", "POST", cms, configMapWith("stamped", `{"a":"1"}`))
	if gjson.Get(stamped, "metadata.labels.stamped-by").String() != "admin" || gjson.Get(stamped, "data.stamp").String() != "yes" {
		t.Errorf("mutated ConfigMap %s, want label stamped-by=admin and data.stamp", stamped)
	}

	annotations := auditAnnotationsOf(t, logPath)
	if got := annotations["configmaps"]["max-keys/keys"]; !slices.Contains(got, "2") {
		t.Errorf("audit annotations max-keys/keys of ConfigMaps %q, want one 2", got)
	}
	wantFailure := `[{"message":"widgets should be small","policy":"small-widgets","binding":"small-widgets-audit","expressionIndex":0,"validationActions":["Audit"]}]`
	if got := annotations["widgets"]["validation.policy.admission.k8s.io/validation_failure"]; !slices.Equal(got, []string{wantFailure}) {
		t.Errorf("Audit annotations of widgets %q, want %q", got, wantFailure)
	}
}

// auditAnnotationsOf reads the annotations of the audit log's
// ResponseComplete events: values by key by resource.
func auditAnnotationsOf(t *testing.T, path string) map[string]map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]string{}
	for line := range strings.Lines(string(data)) {
		ev := gjson.Parse(line)
		if ev.Get("stage").String() != "ResponseComplete" {
			continue
		}
		res := ev.Get("objectRef.resource").String()
		ev.Get("annotations").ForEach(func(k, v gjson.Result) bool {
			if out[res] == nil {
				out[res] = map[string][]string{}
			}
			out[res][k.String()] = append(out[res][k.String()], v.String())
			return true
		})
	}
	return out
}
