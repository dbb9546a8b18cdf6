package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// TestAdmissionPolicyFiles: policies from a definition file guard writes
// and the policy objects themselves; no client (not even system:masters)
// can delete or replace them through the API; a broken edit of the file
// is reported as a broken definition file and the previous version keeps
// guarding; a good edit takes effect.
func TestAdmissionPolicyFiles(t *testing.T) {
	schemas, conversions := definitionsDir(t, gizmoDef(""))
	static, err := os.ReadFile("testdata/policies/static.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(schemas, "admission/static.yaml")
	writeFile(t, file, string(static))
	url, _ := startPostgres(t)
	tokens := secretFile(t, t.TempDir(), "tokens.csv", []byte(rbacTokens))
	m := startMain(t, Config{DatabaseURL: url, Schemas: schemas, Conversions: conversions,
		Security: SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeRBAC}})
	s := &rbacServer{t: t, base: "http://" + m.Addr()}
	cms := "/api/v1/namespaces/default/configmaps"
	labelled := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"forbidden":"yes"}}}`

	out := s.must(http.StatusUnprocessableEntity, "admin", "POST", cms, labelled)
	want := `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'no-forbidden-label.static.k8s.io' with binding 'no-forbidden-label.static.k8s.io' denied request: the forbidden label is forbidden`
	if gjson.Get(out, "message").String() != want {
		t.Errorf("denial %s, want %q", out, want)
	}
	vaps := policyPaths["ValidatingAdmissionPolicy"]
	s.must(http.StatusNotFound, "admin", "DELETE", vaps+"/no-forbidden-label.static.k8s.io", "")
	out = s.must(http.StatusUnprocessableEntity, "admin", "POST", vaps, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
		"metadata":{"name":"no-forbidden-label.static.k8s.io"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"true"}]}}`)
	if !strings.Contains(out, "are reserved for static manifest-based configurations and cannot be managed via the API") {
		t.Errorf("a policy named as a file's: %s", out)
	}
	// The file's policies guard the policy objects; the API's never could.
	out = s.must(http.StatusUnprocessableEntity, "admin", "POST", vaps, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
		"metadata":{"name":"allow-all"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"true"}]}}`)
	if !strings.Contains(out, "admission policies are frozen on this server") {
		t.Errorf("a policy created under a frozen file policy: %s", out)
	}

	// A bad edit: the previous version guards on, the file is reported.
	writeFile(t, file, strings.Replace(string(static), `!('forbidden' in object.metadata.labels)`, `!('forbidden' in object.metadata.labels`, 1))
	wait.Eventually(t, policyWait, func() (bool, string) {
		_, status := s.as("admin", "GET", "/debug/definitions", "")
		return gjson.Get(status, `problems.#(file=="admission/static.yaml")`).Exists(), status
	})
	s.must(http.StatusUnprocessableEntity, "admin", "POST", cms, labelled)

	// A good edit takes effect: the label is allowed once the policy goes.
	docs := strings.Split(string(static), "\n---\n")
	writeFile(t, file, docs[1]+"\n---\n"+docs[3])
	wait.Eventually(t, policyWait, func() (bool, string) {
		code, out := s.as("admin", "POST", cms, labelled)
		return code == http.StatusCreated, out
	})
}
