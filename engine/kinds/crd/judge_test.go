package crd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// A reconcile judges the definitions whose status may have changed: all
// after a list; then those of the group a definition joined or left, and
// a definition whose object alone changed; none when nothing did. Which
// definition of a group is handed to the registry is decided again only
// in the changed group.
func TestReconcileJudgesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	objects := map[string][]byte{}
	for _, g := range []string{"a", "b", "c"} {
		for i := range 3 {
			obj := crdJSON(g+".example.com", fmt.Sprintf("kind%ds", i), fmt.Sprintf("Kind%d", i))
			objects[nameOf(obj)] = obj
		}
	}
	c := newController(t, objects)
	judge := func() string {
		c.hand()
		names := c.toJudge(c.newPass(c.defs.Load(), c.defs.Problems()))
		slices.Sort(names)
		return strings.Join(names, " ")
	}
	if got := judge(); len(strings.Fields(got)) != len(objects) {
		t.Fatalf("first reconcile judged %q, want every definition", got)
	}
	if got := judge(); got != "" {
		t.Errorf("nothing changed, judged %q", got)
	}
	added := crdJSON("b.example.com", "extras", "Extra")
	c.remember(added)
	if got, want := judge(), "extras.b.example.com kind0s.b.example.com kind1s.b.example.com kind2s.b.example.com"; got != want {
		t.Errorf("one more in group b: judged %q, want %q", got, want)
	}
	c.remember(crdJSON("b.example.com", "extrbs", "Extra")) // extras, created first by name, holds the kind
	if got, want := judge(), "extras.b.example.com extrbs.b.example.com kind0s.b.example.com kind1s.b.example.com kind2s.b.example.com"; got != want {
		t.Errorf("a conflicting one in group b: judged %q, want %q", got, want)
	}
	if _, _, served := c.defs.Load().Lookup("b.example.com", "v1", "extrbs"); served || !c.blocked["extrbs.b.example.com"] {
		t.Error("the later of two definitions of one kind was handed to the registry")
	}
	statusOnly, _ := sjson.SetBytes(objects["kind1s.a.example.com"], "status.acceptedNames.kind", "Other")
	c.remember(statusOnly)
	if got, want := judge(), "kind1s.a.example.com"; got != want {
		t.Errorf("a status written: judged %q, want %q", got, want)
	}
	c.forget(objects["kind0s.c.example.com"])
	if got, want := judge(), "kind1s.c.example.com kind2s.c.example.com"; got != want {
		t.Errorf("one removed from group c: judged %q, want %q", got, want)
	}
}
