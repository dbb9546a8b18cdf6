package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
)

func TestPolicyEvaluate(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  userGroups: ["system:nodes"]
  verbs: ["get"]
- level: Metadata
  resources: [{group: "", resources: ["secrets", "configmaps"]}]
  omitStages: [ResponseStarted]
- level: Request
  resources: [{group: "a.io", resources: ["ws/status", "*/scale"]}, {group: "b.io", resources: ["things/*"]}]
  namespaces: ["prod"]
- level: RequestResponse
  resources: [{group: "a.io", resources: ["ws"], resourceNames: ["special"]}]
- level: Metadata
  nonResourceURLs: ["/metrics", "/debug/*"]
`))
	if err != nil {
		t.Fatal(err)
	}
	u := &engine.User{Name: "bob", Groups: []string{"system:nodes"}}
	res := func(verb, group, resource, sub, ns, name string) authz.Attributes {
		return authz.Attributes{User: u, ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		name string
		a    authz.Attributes
		want Level
	}{
		{"user", authz.Attributes{User: &engine.User{Name: "system:kube-proxy"}, Verb: "get", Path: "/metrics"}, LevelNone},
		{"group and verb", res("get", "", "secrets", "", "x", "s"), LevelNone},
		{"resource", res("list", "", "secrets", "", "x", ""), LevelMetadata},
		{"subresource", res("update", "a.io", "ws", "status", "prod", "w"), LevelRequest},
		{"*/scale", res("update", "a.io", "ws", "scale", "prod", "w"), LevelRequest},
		{"things/*", res("update", "b.io", "things", "log", "prod", "w"), LevelRequest},
		{"other namespace", res("update", "a.io", "ws", "status", "dev", "w"), LevelNone},
		{"resourceNames", res("update", "a.io", "ws", "", "dev", "special"), LevelRequestResponse},
		{"other name", res("update", "a.io", "ws", "", "dev", "plain"), LevelNone},
		{"url prefix", authz.Attributes{User: u, Verb: "post", Path: "/debug/pprof/x"}, LevelMetadata},
		{"no rule", authz.Attributes{User: u, Verb: "post", Path: "/apis"}, LevelNone},
		// A request refused for its credentials has no user: rules naming
		// users or groups pass it by, the others match it, as in kube.
		{"no user, users rule", authz.Attributes{Verb: "get", Path: "/metrics"}, LevelMetadata},
		{"no user, groups rule", authz.Attributes{ResourceRequest: true, Verb: "get", Resource: "secrets", Namespace: "x", Name: "s"}, LevelMetadata},
	}
	for _, tt := range tests {
		if got, _ := p.Evaluate(&tt.a); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	a := res("list", "", "configmaps", "", "x", "")
	if _, omit := p.Evaluate(&a); strings.Join(stages(omit), ",") != "RequestReceived,ResponseStarted" {
		t.Errorf("omitStages %v", omit)
	}
	for _, bad := range []string{"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, color: red}]", "kind: Policy"} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func stages(s []Stage) []string {
	out := make([]string, len(s))
	for i, st := range s {
		out[i] = string(st)
	}
	return out
}

func TestLogRotation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(&Policy{}, Options{Path: path, MaxSizeMB: 1, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ev := &Event{Stage: StageResponseComplete, RequestURI: strings.Repeat("x", 100<<10)}
	for range 40 { // 4 MB: three rotations
		if err := l.Write(ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Write(&Event{Stage: StageRequestReceived}, []Stage{StageRequestReceived}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".1", path + ".2"} {
		st, err := os.Stat(p)
		if err != nil || st.Size() > 1<<20 || st.Size() == 0 {
			t.Errorf("%s: %v %v", p, st, err)
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Errorf("more backups kept than asked")
	}
}
