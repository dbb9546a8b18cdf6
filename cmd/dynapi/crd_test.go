package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/internal/wait"
)

const (
	crdsPath     = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	crontabsPath = "/apis/stable.example.com/v1/namespaces/default/crontabs"
)

// cronTabCRD is a definition created through the API; version is its one version.
func cronTabCRD(group, plural, kind, version string) string {
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"%s.%s"},"spec":{"group":%q,"scope":"Namespaced","names":{"plural":%q,"kind":%q},
"versions":[{"name":%q,"served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
		plural, group, group, plural, kind, version)
}

// Two dynapi processes on one database: a definition created through one
// is served by both within 2 s, with its status; one that claims the plural
// of a definition file is refused; deleting a definition deletes its
// objects and unserves its kind; a process started later serves what is
// stored.
func TestDefinitionsThroughTheAPIOnTwoProcesses(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	b := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	cronTab := cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1")

	mustDo(t, http.StatusCreated, http.MethodPost, a+crdsPath, cronTab)
	waitFor(t, http.StatusOK, crontabsPath, a, b)
	created := mustDo(t, http.StatusCreated, http.MethodPost, b+crontabsPath,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
	if list := mustDo(t, http.StatusOK, http.MethodGet, a+crontabsPath, ""); gjson.Get(list, "items.#").Int() != 1 {
		t.Fatalf("list through the other process: %s", list)
	}
	waitForConditions(t, a+crdsPath+"/crontabs.stable.example.com", "NamesAccepted=True:NoConflicts Established=True:InitialNamesAccepted")

	// shop.example.com's widgets come from schemas/: a definition that
	// differs from the file is refused, naming it; v7 would show if served.
	refused := mustDo(t, http.StatusUnprocessableEntity, http.MethodPost, b+crdsPath, cronTabCRD("shop.example.com", "widgets", "Thing", "v7"))
	if !strings.Contains(refused, "definition file shop.example.com/widget.yaml") {
		t.Fatalf("the refusal does not name the file: %s", refused)
	}
	mustDo(t, http.StatusNotFound, http.MethodGet, b+"/apis/shop.example.com/v7/namespaces/default/widgets", "")

	mustDo(t, http.StatusOK, http.MethodDelete, a+crdsPath+"/crontabs.stable.example.com", "")
	waitFor(t, http.StatusNotFound, crontabsPath, a, b)
	mustDo(t, http.StatusCreated, http.MethodPost, b+crdsPath, cronTab)
	waitFor(t, http.StatusOK, crontabsPath, a, b)
	mustDo(t, http.StatusNotFound, http.MethodGet, a+crontabsPath+"/nightly", "") // deleted with its definition
	again := mustDo(t, http.StatusCreated, http.MethodPost, b+crontabsPath,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
	if gjson.Get(again, "metadata.uid").Str == gjson.Get(created, "metadata.uid").Str {
		t.Fatalf("the object created again is the old one: %s", again)
	}

	// A process started later serves the stored definitions from the start.
	c := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusOK, http.MethodGet, c+crontabsPath+"/nightly", "")
}

// mustDo sends a JSON request and fails the test unless it is answered with want.
func mustDo(t *testing.T, want int, method, url, body string) string {
	t.Helper()
	code, out := send(t, method, url, body)
	if code != want {
		t.Fatalf("%s %s = %d, want %d: %s", method, url, code, want, out)
	}
	return out
}

// waitFor waits up to 2 s for path to answer code on each server.
func waitFor(t *testing.T, code int, path string, servers ...string) {
	t.Helper()
	for _, s := range servers {
		what := s + path + " answers " + http.StatusText(code)
		took := wait.Eventually(t, 2*time.Second, func() (bool, string) {
			got, body := httpGet(t, s+path)
			return got == code, what + "; last: " + body
		})
		t.Logf("%s after %v", what, took.Round(time.Millisecond))
	}
}

// waitForConditions waits up to 2 s for the definition at url to have
// conditions want, "Type=Status:Reason" separated by spaces.
func waitForConditions(t *testing.T, url, want string) {
	t.Helper()
	took := wait.Eventually(t, 2*time.Second, func() (bool, string) {
		_, obj := httpGet(t, url)
		var got []string
		for _, c := range gjson.Get(obj, "status.conditions").Array() {
			got = append(got, c.Get("type").Str+"="+c.Get("status").Str+":"+c.Get("reason").Str)
		}
		return strings.Join(got, " ") == want, url + " has " + want + "; last: " + gjson.Get(obj, "status").Raw
	})
	t.Logf("%s has %s after %v", url, want, took.Round(time.Millisecond))
}

// A definition created through the API in the Kubernetes community's
// groups needs kube's approval annotation, with kube's 422; one that names
// a review the server answers, or a built-in kind, is stored but not
// served (its status says why), and the review stays in discovery.
func TestDefinitionsInProtectedGroups(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	approved := func(crd, value string) string {
		out, err := sjson.Set(crd, `metadata.annotations.api-approved\.kubernetes\.io`, value)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const field = "metadata.annotations[api-approved.kubernetes.io]"
	shadow := cronTabCRD("shadow.k8s.io", "tests", "Test", "v1")
	tests := []struct {
		name, body     string
		code           int
		cause, message string // the cause's type, the Status message
	}{
		{"no annotation", shadow, http.StatusUnprocessableEntity, "FieldValueRequired",
			`CustomResourceDefinition.apiextensions.k8s.io "tests.shadow.k8s.io" is invalid: ` + field +
				`: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`},
		{"neither a URL nor unapproved", approved(cronTabCRD("x.kubernetes.io", "tests", "Test", "v1"), "yes"), http.StatusUnprocessableEntity, "FieldValueInvalid",
			`CustomResourceDefinition.apiextensions.k8s.io "tests.x.kubernetes.io" is invalid: ` + field +
				`: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`},
		{"k8s.io itself", cronTabCRD("k8s.io", "tests", "Test", "v1"), http.StatusUnprocessableEntity, "FieldValueRequired", ""},
		{"a URL", approved(shadow, "https://github.com/kubernetes/enhancements/pull/1111"), http.StatusCreated, "", ""},
		{"unapproved", approved(cronTabCRD("y.k8s.io", "tests", "Test", "v1"), "unapproved, experimental"), http.StatusCreated, "", ""},
		{"not a protected group", cronTabCRD("notk8s.io", "tests", "Test", "v1"), http.StatusCreated, "", ""},
		{"a review's resource", approved(cronTabCRD("authorization.k8s.io", "selfsubjectaccessreviews", "Shadow", "v1"), "unapproved"),
			http.StatusCreated, "", ""},
		{"a built-in kind's resource", approved(cronTabCRD("rbac.authorization.k8s.io", "roles", "Shadow", "v2"), "unapproved"),
			http.StatusCreated, "", ""},
	}
	for _, tt := range tests {
		code, body := send(t, http.MethodPost, a+crdsPath, tt.body)
		if code != tt.code || gjson.Get(body, "details.causes.0.reason").Str != tt.cause ||
			(tt.cause != "" && gjson.Get(body, "details.causes.0.field").Str != field) ||
			(tt.message != "" && gjson.Get(body, "message").Str != tt.message) {
			t.Errorf("%s: %d %s\nwant %d %s %s", tt.name, code, body, tt.code, tt.cause, tt.message)
		}
	}
	waitFor(t, http.StatusOK, "/apis/shadow.k8s.io/v1/namespaces/default/tests", a)
	waitForConditions(t, a+crdsPath+"/selfsubjectaccessreviews.authorization.k8s.io", "NamesAccepted=False:PluralConflict Established=False:NotAccepted")
	waitForConditions(t, a+crdsPath+"/roles.rbac.authorization.k8s.io", "NamesAccepted=False:PluralConflict Established=False:NotAccepted")
	discovery := mustDo(t, http.StatusOK, http.MethodGet, a+"/apis/authorization.k8s.io/v1", "")
	if kind := gjson.Get(discovery, `resources.#(name=="selfsubjectaccessreviews").kind`).Str; kind != "SelfSubjectAccessReview" {
		t.Errorf("discovery of authorization.k8s.io/v1: %s", discovery)
	}
	mustDo(t, http.StatusNotFound, http.MethodGet, a+"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "")
	mustDo(t, http.StatusNotFound, http.MethodGet, a+"/apis/rbac.authorization.k8s.io/v2/roles", "")
	mustDo(t, http.StatusCreated, http.MethodPost, a+"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`)
}
