package main

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/audit"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: Request          # a Secret's bodies stay out below RequestResponse
  resources: [{group: "", resources: ["secrets"]}]
- level: RequestResponse
  resources: [{group: "shop.example.com", resources: ["widgets"]}]
- level: Request
  resources: [{group: "", resources: ["configmaps"]}]
- level: Metadata
`

func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	logPath := dir + "/audit.log"
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{
		TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC,
		AuditPolicyFile: secretFile(t, dir, "policy.yaml", []byte(auditPolicy)), AuditLog: audit.Options{Path: logPath}}})
	s := &rbacServer{t: t, base: "http://" + m.Addr()}
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/default/secrets",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"data":{"password":"aHVudGVyMg=="}}`)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"k":"v"}}`)
	s.must(http.StatusCreated, "admin", "POST", "/apis/shop.example.com/v1/namespaces/default/widgets", widget("w1"))
	s.must(http.StatusForbidden, "bob", "DELETE", "/apis/shop.example.com/v1/namespaces/default/widgets/w1", "")
	s.must(http.StatusOK, "bob", "GET", "/healthz", "")
	s.must(http.StatusOK, "bob", "GET", "/version", "")

	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "aHVudGVyMg") || strings.Contains(string(data), "hunter2") {
		t.Errorf("the Secret's data is in the audit log:\n%s", data)
	}
	events := map[string]gjson.Result{} // by "user verb resource"
	for line := range strings.Lines(string(data)) {
		ev := gjson.Parse(line)
		if ev.Get("kind").String() != "Event" || ev.Get("apiVersion").String() != "audit.k8s.io/v1" || ev.Get("stage").String() != "ResponseComplete" ||
			ev.Get("auditID").String() == "" || !ev.Get("requestReceivedTimestamp").Exists() || !ev.Get("stageTimestamp").Exists() {
			t.Errorf("malformed event: %s", line)
		}
		key := ev.Get("user.username").String() + " " + ev.Get("verb").String() + " " + ev.Get("objectRef.resource").String() + ev.Get("requestURI").String()
		events[key] = ev
	}
	want := func(key, level string, code int, request, response bool) gjson.Result {
		t.Helper()
		ev, ok := events[key]
		if !ok {
			t.Fatalf("no event %q in:\n%s", key, data)
		}
		if ev.Get("level").String() != level || ev.Get("responseStatus.code").Int() != int64(code) ||
			ev.Get("requestObject").Exists() != request || ev.Get("responseObject").Exists() != response {
			t.Errorf("%s: want level %s, code %d, request body %v, response body %v: %s", key, level, code, request, response, ev.Raw)
		}
		return ev
	}
	want("admin create secrets/api/v1/namespaces/default/secrets", "Request", 201, false, false)
	cm := want("admin create configmaps/api/v1/namespaces/default/configmaps", "Request", 201, true, false)
	if cm.Get("requestObject.data.k").String() != "v" || cm.Get("objectRef.namespace").String() != "default" {
		t.Errorf("configmap event: %s", cm.Raw)
	}
	w := want("admin create widgets/apis/shop.example.com/v1/namespaces/default/widgets", "RequestResponse", 201, true, true)
	if w.Get("responseObject.metadata.uid").String() == "" || w.Get("objectRef.apiGroup").String() != "shop.example.com" {
		t.Errorf("widget event: %s", w.Raw)
	}
	denied := want("bob delete widgets/apis/shop.example.com/v1/namespaces/default/widgets/w1", "RequestResponse", 403, false, true)
	if denied.Get("responseStatus.reason").String() != "Forbidden" || !strings.Contains(denied.Get("user.groups").Raw, "system:authenticated") {
		t.Errorf("refusal event: %s", denied.Raw)
	}
	want("bob get /version", "Metadata", 200, false, false)
	if _, ok := events["bob get /healthz"]; ok {
		t.Errorf("level None recorded: %s", events["bob get /healthz"].Raw)
	}
}
