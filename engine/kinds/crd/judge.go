package crd

import (
	"maps"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
)

// A definition's status depends on its own object, on the definitions of
// its group (the one created first holds a name), on the names definition
// files hold in its group, and on what the snapshot serves of it or
// refused. So a reconcile judges only the definitions whose inputs changed
// since the last one: one more definition costs a look at its group, not
// a status rendered for every definition.

// changes are what changed since the last reconcile.
type changes struct {
	names  map[string]bool // definitions whose object changed
	groups map[string]bool // groups whose definitions' names or order changed
	all    bool            // judge every definition (after a list)
}

func newChanges() changes {
	return changes{names: map[string]bool{}, groups: map[string]bool{}}
}

// noteChange records that definition name went from was to is (nil: none).
// A change of spec, creation time, or a definition added or removed, may
// change what the others of its group hold and what is handed to the
// registry; any other change (a status written) only its own status.
func (c *Controller) noteChange(name string, was, is *definition) {
	c.pending.names[name] = true
	if was != nil && is != nil && was.spec == is.spec && was.created == is.created {
		return
	}
	for _, d := range []*definition{was, is} {
		if d != nil {
			c.pending.groups[d.group] = true
			c.respec.groups[d.group] = true
		}
	}
}

// toJudge returns the definitions whose status may differ since the last
// reconcile, and makes p the pass the next one compares with.
func (c *Controller) toJudge(p *pass) []string {
	ch, prev := c.pending, c.judged
	c.pending, c.judged = newChanges(), p
	if ch.all || prev == nil {
		return slices.Collect(maps.Keys(c.objects))
	}
	p.changedSince(prev, ch)
	names := map[string]bool{}
	for name := range ch.names {
		if _, ok := c.objects[name]; ok {
			names[name] = true
		}
	}
	for group := range ch.groups {
		for _, d := range p.byGroup[group] {
			names[d.name] = true
		}
	}
	return slices.Collect(maps.Keys(names))
}

// changedSince adds to ch the definitions and groups whose part of the
// snapshot differs between prev and p: what is served of a definition
// (the registry keeps the resource of an unchanged one), why it is
// refused, and the names definition files hold in a group.
func (p *pass) changedSince(prev *pass, ch changes) {
	if p.snap == prev.snap {
		return
	}
	for file := range union(p.served, prev.served) {
		if name, ok := apiName(file); ok && p.served[file] != prev.served[file] {
			ch.names[name] = true
		}
	}
	for file := range union(p.refusals, prev.refusals) {
		if name, ok := apiName(file); ok && !slices.Equal(p.refusals[file], prev.refusals[file]) {
			ch.names[name] = true
		}
	}
	for group := range union(p.files, prev.files) {
		if !maps.Equal(p.files[group], prev.files[group]) {
			ch.groups[group] = true
		}
	}
}

// union returns the keys of a and b.
func union[V any](a, b map[string]V) map[string]bool {
	keys := make(map[string]bool, len(a))
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// apiName returns the definition a Resource's or Problem's File names,
// when it is one created through the API.
func apiName(file string) (string, bool) {
	return strings.CutPrefix(file, registry.APIFilePrefix)
}
