package registry

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/engine"
)

// The built-in kinds are served whatever folder is given, even none.
func TestLoadServesBuiltins(t *testing.T) {
	t.Parallel()
	snap, problems := Load(fstest.MapFS{}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %s", problemList(problems))
	}
	for _, gr := range []engine.GroupResource{
		{Resource: "namespaces"}, {Resource: "configmaps"}, {Resource: "secrets"}, {Resource: "serviceaccounts"},
		{Resource: "events"}, {Group: "coordination.k8s.io", Resource: "leases"}, {Group: "events.k8s.io", Resource: "events"},
		{Group: "rbac.authorization.k8s.io", Resource: "roles"}, {Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"},
	} {
		r := resourceOf(snap, gr)
		if r == nil {
			t.Errorf("%s is not served", gr)
			continue
		}
		if !IsBuiltinFile(r.File) {
			t.Errorf("%s comes from %s", gr, r.File)
		}
	}
}

// A definition file that claims a built-in kind's names is refused, and
// the problem names both definitions.
func TestLoadRefusesBuiltinNames(t *testing.T) {
	t.Parallel()
	mine := `group: ""
kind: ConfigMap
plural: configmaps
scope: Namespaced
versions:
- {name: v1, storage: true, schema: {type: object}}
`
	snap, problems := Load(fstest.MapFS{"core/my-configmap.yaml": {Data: []byte(mine)}}, nil)
	if len(problems) != 1 {
		t.Fatalf("want one problem, got %s", problemList(problems))
	}
	got := problems[0].String()
	for _, want := range []string{"core/my-configmap.yaml", "ConfigMap", "builtin:core/configmap.yaml", "built-in"} {
		if !strings.Contains(got, want) {
			t.Errorf("problem %q does not say %q", got, want)
		}
	}
	if r := resourceOf(snap, engine.GroupResource{Resource: "configmaps"}); r == nil || !IsBuiltinFile(r.File) {
		t.Errorf("configmaps is not the built-in one: %+v", r)
	}
}

// --runtime-config switches a built-in group off like any other.
func TestRuntimeConfigSwitchesBuiltinsOff(t *testing.T) {
	t.Parallel()
	c, err := ParseRuntimeConfig("coordination.k8s.io=false,api/v1=false")
	if err != nil {
		t.Fatal(err)
	}
	snap, problems := LoadWith(fstest.MapFS{}, nil, LoadOptions{RuntimeConfig: c})
	if len(problems) > 0 {
		t.Fatalf("problems: %s", problemList(problems))
	}
	for _, gvr := range [][3]string{{"coordination.k8s.io", "v1", "leases"}, {"", "v1", "configmaps"}, {"", "v1", "namespaces"}} {
		if _, _, ok := snap.Lookup(gvr[0], gvr[1], gvr[2]); ok {
			t.Errorf("%v is served", gvr)
		}
	}
	if _, _, ok := snap.Lookup("rbac.authorization.k8s.io", "v1", "roles"); !ok {
		t.Error("roles are not served")
	}
	if got := c.Unmatched(snap); len(got) > 0 {
		t.Errorf("unmatched: %v", got)
	}
}

func resourceOf(snap *Snapshot, gr engine.GroupResource) *Resource {
	for _, r := range snap.Resources() {
		if r.GroupResource() == gr {
			return r
		}
	}
	return nil
}
