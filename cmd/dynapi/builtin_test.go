package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// crdOnly is a --schemas folder holding one CustomResourceDefinition file.
func crdOnly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	crd, err := os.ReadFile("../../schemas/labs.example.com/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "widget-crd.yaml"), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A server given a folder with one CRD file serves the built-in kinds too:
// namespaces (so the CRD's objects can be created), CRDs through the API,
// and every kind of the generic control plane.
func TestBuiltinsServedWhateverSchemas(t *testing.T) {
	url, _ := startPostgres(t)
	conversions := t.TempDir()
	base := "http://" + startMain(t, Config{DatabaseURL: url, Schemas: crdOnly(t), Conversions: conversions}).Addr()
	for _, path := range []string{
		"/api/v1/namespaces/default",
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		"/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/secrets",
		"/api/v1/namespaces/default/serviceaccounts", "/api/v1/namespaces/default/events",
		"/apis/coordination.k8s.io/v1/namespaces/default/leases", "/apis/events.k8s.io/v1/namespaces/default/events",
		"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
		"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
	} {
		if code, body := httpGet(t, base+path); code != http.StatusOK {
			t.Errorf("GET %s = %d: %s", path, code, body)
		}
	}
	mustDo(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`)
	mustDo(t, http.StatusCreated, http.MethodPost, base+"/apis/coordination.k8s.io/v1/namespaces/default/leases",
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15}}`)
}

// --runtime-config switches a built-in group off; the others stay.
func TestBuiltinsSwitchedOff(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url, RuntimeConfig: "coordination.k8s.io=false"}).Addr()
	waitFor(t, http.StatusNotFound, "/apis/coordination.k8s.io/v1/namespaces/default/leases", base)
	if code, body := httpGet(t, base+"/api/v1/namespaces/default/configmaps"); code != http.StatusOK {
		t.Errorf("configmaps = %d: %s", code, body)
	}
	_, groups := httpGet(t, base+"/apis")
	if gjson.Get(groups, `groups.#(name=="coordination.k8s.io")`).Exists() {
		t.Errorf("discovery lists coordination.k8s.io: %s", groups)
	}
}

// A definition file claiming a built-in kind's names is refused by name,
// both by check and by the server, which serves the built-in.
func TestBuiltinNamesRefused(t *testing.T) {
	dir := crdOnly(t)
	mine := "group: \"\"\nkind: ConfigMap\nplural: configmaps\nscope: Namespaced\nversions:\n- {name: v1, storage: true, schema: {type: object}}\n"
	if err := os.WriteFile(filepath.Join(dir, "my-configmap.yaml"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := check(Config{Schemas: dir, Conversions: t.TempDir()}, &out, io.Discard)
	if err == nil || !strings.Contains(out.String(), "my-configmap.yaml") || !strings.Contains(out.String(), "builtin:core/configmap.yaml") {
		t.Errorf("check: %v\n%s", err, out.String())
	}
}

// The real kubectl creates and reads the built-in kinds; its typed clients
// send them as protobuf.
func TestKubectlBuiltins(t *testing.T) {
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	dir := t.TempDir()
	writeCM := func(value string) string { // one file per version: the steps are built before they run
		applied := filepath.Join(dir, value+".yaml")
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  key: " + value + "\n"
		if err := os.WriteFile(applied, []byte(cm), 0o644); err != nil {
			t.Fatal(err)
		}
		return applied
	}
	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"create", "configmap", "settings", "--from-literal=a=b"}, []string{"configmap/settings created"}},
		{[]string{"create", "secret", "generic", "creds", "--from-literal=user=admin"}, []string{"secret/creds created"}},
		{[]string{"create", "serviceaccount", "builder"}, []string{"serviceaccount/builder created"}},
		{[]string{"create", "role", "reader", "--verb=get,list", "--resource=configmaps"}, []string{"role.rbac.authorization.k8s.io/reader created"}},
		{[]string{"create", "rolebinding", "read", "--role=reader", "--serviceaccount=default:builder"},
			[]string{"rolebinding.rbac.authorization.k8s.io/read created"}},
		{[]string{"create", "clusterrole", "viewer", "--verb=get", "--resource=secrets"}, []string{"clusterrole.rbac.authorization.k8s.io/viewer created"}},
		{[]string{"create", "clusterrolebinding", "viewers", "--clusterrole=viewer", "--group=ops"},
			[]string{"clusterrolebinding.rbac.authorization.k8s.io/viewers created"}},
		{[]string{"get", "cm,secret,sa,role", "-o", "yaml"},
			[]string{"kind: ConfigMap", "a: b", "kind: Secret", "user: YWRtaW4=", "type: Opaque", "kind: ServiceAccount", "kind: Role", "- configmaps"}},
		{[]string{"get", "secret", "creds"}, []string{"creds", "Opaque"}},
		{[]string{"get", "rolebinding", "read", "-o", "jsonpath={.roleRef.name} {.subjects[0].name}"}, []string{"reader builder"}},
		{[]string{"delete", "configmap", "settings"}, []string{`configmap "settings" deleted`}},
		// kubectl apply of a changed object sends a strategic merge patch.
		{[]string{"apply", "-f", writeCM("one")}, []string{"configmap/applied created"}},
		{[]string{"apply", "-f", writeCM("two")}, []string{"configmap/applied configured"}},
		{[]string{"get", "cm", "applied", "-o", "jsonpath={.data.key}"}, []string{"two"}},
		// kubectl events lists Events in protobuf; --for selects them by involvedObject fields.
		{[]string{"create", "-f", "testdata/kubectl/event.yaml"}, []string{"event/applied.1 created"}},
		{[]string{"events"}, []string{"REASON", "Applied", "ConfigMap/applied", "applied twice"}},
		{[]string{"events", "--for", "configmap/applied"}, []string{"Applied", "applied twice"}},
		{[]string{"delete", "secret", "creds"}, []string{`secret "creds" deleted`}},
	}
	for _, s := range steps {
		out := k.run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
}
