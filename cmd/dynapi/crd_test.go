package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

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
// of a definition file is stored but not served; deleting a definition
// unserves its kind and keeps its objects, which come back with it; a
// process started later serves what is stored.
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

	// shop.example.com's widgets come from schemas/; v7 would show if served.
	mustDo(t, http.StatusCreated, http.MethodPost, b+crdsPath, cronTabCRD("shop.example.com", "widgets", "Thing", "v7"))
	waitForConditions(t, a+crdsPath+"/widgets.shop.example.com", "NamesAccepted=False:PluralConflict Established=False:NotAccepted")
	mustDo(t, http.StatusNotFound, http.MethodGet, b+"/apis/shop.example.com/v7/namespaces/default/widgets", "")

	mustDo(t, http.StatusOK, http.MethodDelete, a+crdsPath+"/crontabs.stable.example.com", "")
	waitFor(t, http.StatusNotFound, crontabsPath, a, b)
	mustDo(t, http.StatusCreated, http.MethodPost, b+crdsPath, cronTab)
	waitFor(t, http.StatusOK, crontabsPath+"/nightly", a, b)
	again := mustDo(t, http.StatusOK, http.MethodGet, a+crontabsPath+"/nightly", "")
	if gjson.Get(again, "metadata.uid").Str != gjson.Get(created, "metadata.uid").Str {
		t.Fatalf("the re-created definition serves another object: %s", again)
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
