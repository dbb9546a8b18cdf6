package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

const (
	rulesPath  = "/apis/dynapi.dev/v1alpha1/conversionrules"
	clocksPath = "/apis/time.example.com/%s/namespaces/default/clocks"
)

// clockCRD defines Clock through the API: v1 has spec.cron, the hub and
// storage version v2 calls it spec.schedule.
const clockCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"clocks.time.example.com"},"spec":{"group":"time.example.com","scope":"Namespaced",
"names":{"plural":"clocks","kind":"Clock"},"versions":[
{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
 "spec":{"type":"object","properties":{"schedule":{"type":"string"}}}}}}},
{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{
 "spec":{"type":"object","properties":{"cron":{"type":"string"}}}}}}}]}}`

// clockRules is a ConversionRules object for Clock with v1's toHub rules.
func clockRules(toHub string) string {
	return `{"apiVersion":"dynapi.dev/v1alpha1","kind":"ConversionRules","metadata":{"name":"clock.time.example.com"},
"spec":{"group":"time.example.com","kind":"Clock","hub":"v2","versions":{"v1":{"toHub":` + toHub + `}}}}`
}

func clocks(version string) string { return strings.Replace(clocksPath, "%s", version, 1) }

// Two processes on one database: rules created through one convert on the
// other within 2 s, and the object's Active condition says so; deleted
// through the other, they stop converting on the first within 2 s.
func TestConversionRulesThroughTheAPIOnTwoProcesses(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	b := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, a+crdsPath, clockCRD)
	waitFor(t, http.StatusOK, clocks("v1"), a, b)

	mustDo(t, http.StatusCreated, http.MethodPost, a+rulesPath, clockRules(`[{"move":{"from":"spec.cron","to":"spec.schedule"}}]`))
	took := wait.Eventually(t, 2*time.Second, func() (bool, string) {
		code, out := send(t, http.MethodPost, b+clocks("v1"),
			`{"apiVersion":"time.example.com/v1","kind":"Clock","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
		if code != http.StatusCreated {
			return false, "create through B: " + out
		}
		got := mustDo(t, http.StatusOK, http.MethodGet, a+clocks("v2")+"/nightly", "")
		if gjson.Get(got, "spec.schedule").Str == "0 3 * * *" {
			return true, ""
		}
		mustDo(t, http.StatusOK, http.MethodDelete, b+clocks("v1")+"/nightly", "") // written before B had the rules
		return false, "v1's cron read as v2's schedule through A; last: " + got
	})
	t.Logf("rules created through A convert on B after %v", took.Round(time.Millisecond))
	if got := mustDo(t, http.StatusOK, http.MethodGet, b+clocks("v1")+"/nightly", ""); gjson.Get(got, "spec.cron").Str != "0 3 * * *" {
		t.Errorf("read back in v1 through B: %s", got)
	}
	waitForConditions(t, b+rulesPath+"/clock.time.example.com", "Active=True:Converting")

	// Deleted through B, the rules stop converting on A: v1 is v2 renamed.
	mustDo(t, http.StatusOK, http.MethodDelete, b+rulesPath+"/clock.time.example.com", "")
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		got := mustDo(t, http.StatusOK, http.MethodGet, a+clocks("v1")+"/nightly", "")
		return !gjson.Get(got, "spec.cron").Exists(), "v1 read through A without the rules; last: " + got
	})
}

// Rules that do not fit the kind, or lose a field, are refused with a 422
// naming the rule and the field, and nothing is stored.
func TestConversionRulesRefused(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, a+crdsPath, clockCRD)
	waitFor(t, http.StatusOK, clocks("v1"), a)
	tests := []struct {
		name, object, field, message string
	}{
		{"a field the version lacks", clockRules(`[{"move":{"from":"spec.nope","to":"spec.schedule"}}]`),
			"spec.versions.v1.toHub[0]", `move: from "spec.nope": v1 has no such field`},
		{"a field lost on the way", clockRules(`[{"move":{"from":"spec.cron","to":"spec.schedule"}},{"delete":{"path":"spec.schedule"}}]`),
			"spec.versions.v1.toHub[", "spec.cron"},
		{"a name not the kind's", strings.Replace(clockRules(`[]`), `"clock.time.example.com"`, `"clocks"`, 1),
			"metadata.name", "must be clock.time.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustDo(t, http.StatusUnprocessableEntity, http.MethodPost, a+rulesPath, tt.object)
			found := false
			for _, c := range gjson.Get(out, "details.causes").Array() {
				found = found || strings.HasPrefix(c.Get("field").Str, tt.field) && strings.Contains(c.Get("message").Str, tt.message)
			}
			if !found {
				t.Errorf("no cause on %s saying %q: %s", tt.field, tt.message, out)
			}
			mustDo(t, http.StatusNotFound, http.MethodGet, a+rulesPath+"/"+gjson.Get(tt.object, "metadata.name").Str, "")
		})
	}
}

// Rules through the API for a kind whose rules a file gives are stored, not
// applied: the file wins, and the Active condition says so.
func TestConversionRulesOverriddenByFile(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	pipe := `{"apiVersion":"dynapi.dev/v1alpha1","kind":"ConversionRules","metadata":{"name":"pipe.plumbing.example.com"},
"spec":{"group":"plumbing.example.com","kind":"Pipe","hub":"v2","versions":{
 "v1":{"toHub":[{"move":{"from":"spec.owner","to":"spec.maintainer"}},{"move":{"from":"spec.diameter","to":"spec.size.diameter"}},
  {"mapValues":{"path":"spec.material","values":{"steel":"Steel","copper":"Copper","plastic":"Plastic"}}},
  {"wrap":{"from":"spec.outlet","to":"spec.outlets"}},{"split":{"from":"spec.tags","to":"spec.tags","separator":","}},
  {"coerce":{"path":"spec.pressure","to":"number"}},
  {"forEach":{"path":"spec.joints","rules":[{"move":{"from":"type","to":"kind"}},{"mapValues":{"path":"kind","values":{"elbow":"Elbow","tee":"Tee"}}},{"coerce":{"path":"angle","to":"number"}}]}}]},
 "v3":{"toHub":[{"move":{"from":"spec.dimensions.diameter","to":"spec.size.diameter"}},{"move":{"from":"spec.dimensions.wall","to":"spec.size.wallThickness"}},
  {"toAnnotation":{"from":"spec.notes","key":"plumbing.example.com/notes"}}]}}}}`
	created := mustDo(t, http.StatusCreated, http.MethodPost, a+rulesPath, pipe)
	if !strings.Contains(created, `"kind":"ConversionRules"`) {
		t.Fatalf("created: %s", created)
	}
	obj := a + rulesPath + "/pipe.plumbing.example.com"
	waitForConditions(t, obj, "Active=False:OverriddenByFile")
	_, got := httpGet(t, obj)
	if msg := gjson.Get(got, `status.conditions.0.message`).Str; !strings.Contains(msg, "plumbing.example.com/pipe.yaml, which wins") {
		t.Errorf("the condition does not name the rules file: %q", msg)
	}
}

// `dynapi migrate` converts by the rules stored through the API, as serve
// does: a Clock stored in v1, migrated after its definition made v2 the
// storage version, keeps v1's cron as v2's schedule.
func TestMigrateWithConversionRules(t *testing.T) {
	url, _ := startPostgres(t)
	m := runMain(t, Config{DatabaseURL: url})
	base := "http://" + m.Addr()
	storedInV1 := strings.NewReplacer(`"storage":true`, `"storage":false`, `"storage":false`, `"storage":true`).Replace(clockCRD)
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, storedInV1)
	waitFor(t, http.StatusOK, clocks("v1"), base)
	mustDo(t, http.StatusCreated, http.MethodPost, base+rulesPath, clockRules(`[{"move":{"from":"spec.cron","to":"spec.schedule"}}]`))
	waitForConditions(t, base+rulesPath+"/clock.time.example.com", "Active=True:Converting")
	mustDo(t, http.StatusCreated, http.MethodPost, base+clocks("v1"),
		`{"apiVersion":"time.example.com/v1","kind":"Clock","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
	crd := mustDo(t, http.StatusOK, http.MethodGet, base+crdsPath+"/clocks.time.example.com", "")
	versions := gjson.Get(clockCRD, "spec.versions").Raw // v2 stores
	if code, out := sendAs(t, http.MethodPatch, base+crdsPath+"/clocks.time.example.com", "application/merge-patch+json",
		`{"metadata":{"resourceVersion":"`+gjson.Get(crd, "metadata.resourceVersion").Str+`"},"spec":{"versions":`+versions+`}}`); code != http.StatusOK {
		t.Fatalf("make v2 the storage version: %d %s", code, out)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "--database-url", url, "--schemas", "../../schemas", "--conversions", "../../conversions"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("dynapi migrate: %v\n%s", err, stderr.String())
	}
	if want := "clocks.time.example.com: stored in v1=1; rewrote 1 into v2"; !strings.Contains(stdout.String(), want) {
		t.Fatalf("dynapi migrate printed:\n%s\nwant %q", stdout.String(), want)
	}
	base = "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	if got := mustDo(t, http.StatusOK, http.MethodGet, base+clocks("v2")+"/nightly", ""); gjson.Get(got, "spec.schedule").Str != "0 3 * * *" {
		t.Errorf("migrated without the rules: %s", got)
	}
}

// RBAC applies to ConversionRules as to any kind: a user may create them
// only once a role grants it, and then still may not delete them.
func TestConversionRulesRBAC(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", http.MethodPost, crdsPath, clockCRD)
	rules := clockRules(`[{"move":{"from":"spec.cron","to":"spec.schedule"}}]`)
	code, body := s.as("bob", http.MethodPost, rulesPath, rules)
	want := `conversionrules.dynapi.dev is forbidden: User "bob" cannot create resource "conversionrules" in API group "dynapi.dev" at the cluster scope`
	if code != http.StatusForbidden || gjson.Get(body, "message").Str != want {
		t.Fatalf("create without a role: %d %s", code, body)
	}
	s.must(http.StatusCreated, "admin", http.MethodPost, rbacPath+"clusterroles",
		role("ClusterRole", "", "rules-writer", `[{"apiGroups":["dynapi.dev"],"resources":["conversionrules"],"verbs":["create","get"]}]`))
	s.must(http.StatusCreated, "admin", http.MethodPost, rbacPath+"clusterrolebindings",
		binding("ClusterRoleBinding", "", "bob-writes-rules", "ClusterRole", "rules-writer", `[{"kind":"User","name":"bob"}]`))
	s.eventually(http.StatusCreated, "bob", http.MethodPost, rulesPath, rules)
	s.must(http.StatusOK, "bob", http.MethodGet, rulesPath+"/clock.time.example.com", "")
	s.must(http.StatusForbidden, "bob", http.MethodDelete, rulesPath+"/clock.time.example.com", "")
}
