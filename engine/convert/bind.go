package convert

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Bind checks the rules against the schemas of the kind's versions (shapes,
// by version name; a nil Shape, for a version without a schema, has every
// field) and returns the rules completed with what only the schemas tell:
// the type each coerce goes back to, and how an annotation reads back into
// its field. It checks that the hub and every version with rules are
// versions of the kind; that every path a rule reads exists in the version
// it converts from, or was written by an earlier rule; that every path a
// rule writes exists in the version it converts to, or is read by a later
// rule; and that in metadata only labels and annotations are converted.
// Rules written in fromHub are checked the same way, from the hub. A nil
// Rules stays nil. Errors: Problems.
func (r *Rules) Bind(shapes map[string]Shape) (*Rules, error) {
	if r == nil {
		return nil, nil
	}
	var ps Problems
	hub, ok := shapes[r.hub]
	if !ok {
		ps.add("hub", fmt.Sprintf("%q is not a version of %s (versions: %s)", r.hub, r.kind, versionList(shapes)))
	}
	out := &Rules{group: r.group, kind: r.kind, hub: r.hub, versions: map[string]*versionRules{}}
	for _, name := range r.Versions() {
		spoke, ok := shapes[name]
		if !ok {
			ps.add("versions."+name, fmt.Sprintf("no such version of %s (versions: %s)", r.kind, versionList(shapes)))
			continue
		}
		out.versions[name] = r.versions[name].bind(name, r.hub, orAny(spoke), orAny(hub), &ps)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// bind checks one version's rules both ways.
func (v *versionRules) bind(name, hubName string, spoke, hub Shape, ps *Problems) *versionRules {
	toHub := newBinding(spoke, hub, name, hubName+" (the hub)", true)
	out := &versionRules{toHub: toHub.steps(v.toHub, ps), fromHubWritten: v.fromHubWritten}
	if !v.fromHubWritten {
		out.fromHub = invert(out.toHub, "versions."+name+".fromHub")
		return out
	}
	fromHub := newBinding(hub, spoke, hubName+" (the hub)", name, true)
	out.fromHub = fromHub.steps(v.fromHub, ps)
	return out
}

func orAny(s Shape) Shape {
	if s == nil {
		return anyShape{}
	}
	return s
}

func versionList(shapes map[string]Shape) string {
	return strings.Join(slices.Sorted(maps.Keys(shapes)), ", ")
}

// binding is one list of rules being checked: the schemas it converts
// between, and within says where in them when inside forEach. now is the
// source as the rules checked so far have left it, for the types of the
// values the next rule reads.
type binding struct {
	src, dst         Shape
	srcName, dstName string
	root             bool   // paths start at the object's root
	within           string // " in the items of spec.joints", inside forEach
	now              traced
}

func newBinding(src, dst Shape, srcName, dstName string, root bool) *binding {
	return &binding{src: src, dst: dst, srcName: srcName, dstName: dstName, root: root, now: traced{base: src}}
}

// steps checks and binds a list of rules.
func (b *binding) steps(steps []step, ps *Problems) []step {
	out := make([]step, 0, len(steps))
	for i, s := range steps {
		bad := false
		for _, u := range s.rule.uses() {
			if why := b.check(steps, i, u); why != "" {
				ps.add(s.where, fmt.Sprintf("%s: %s %q: %s", ruleNameOf(s.rule), u.field, u.p.text, why))
				bad = true
			}
		}
		bound, why := b.bind(s.rule, ps)
		if why != "" {
			bound = s.rule // Bind fails; keep the list whole meanwhile
			if !bad {
				ps.add(s.where, ruleNameOf(s.rule)+": "+why)
			}
		}
		b.follow(bound)
		out = append(out, step{rule: bound, where: s.where})
	}
	return out
}

// check returns why a rule's use of a path is wrong, or "".
func (b *binding) check(steps []step, i int, u use) string {
	if u.p.isRoot() {
		return ""
	}
	if u.read {
		_, ok, forbidden := resolve(b.src, u.p, b.root)
		if forbidden != "" {
			return forbidden
		}
		if !ok && !touched(steps[:i], u.p, func(u use) bool { return u.write }) {
			return b.srcName + " has no such field" + b.within
		}
	}
	if u.write {
		_, ok, forbidden := resolve(b.dst, u.p, b.root)
		if forbidden != "" {
			return forbidden
		}
		if !ok && !touched(steps[i+1:], u.p, func(u use) bool { return u.read }) {
			return b.dstName + " has no such field" + b.within
		}
	}
	return ""
}

// touched reports whether one of steps uses a path overlapping p in the
// way that matters.
func touched(steps []step, p path, matters func(use) bool) bool {
	for _, s := range steps {
		for _, u := range s.rule.uses() {
			if matters(u) && u.p.overlaps(p) {
				return true
			}
		}
	}
	return false
}

// bind completes one rule with what the schemas tell.
func (b *binding) bind(r rule, ps *Problems) (rule, string) {
	switch x := r.(type) {
	case forEach:
		items := b.items(x.path)
		x.steps = items.steps(x.steps, ps)
		b.now = b.now.with(x.path, listOf{items.now}) // the items as its rules leave them
		return x, ""
	case binder:
		return x.bind(b)
	}
	return r, ""
}

// items is the binding of the rules forEach applies to the items of the
// list at p, as the rules before have left it (a list moved there by an
// earlier rule has the items it had where it came from); a side where the
// list's items cannot be told uses the other side's.
func (b *binding) items(p path) *binding {
	src, srcOK := b.itemsOf(b.now, p)
	dst, dstOK := b.itemsOf(b.dst, p)
	switch {
	case !srcOK && !dstOK:
		src, dst = anyShape{}, anyShape{}
	case !srcOK:
		src = dst
	case !dstOK:
		dst = src
	}
	items := newBinding(src, dst, b.srcName, b.dstName, false)
	items.within = " in the items of " + p.text + b.within
	return items
}

func (b *binding) itemsOf(s Shape, p path) (Shape, bool) {
	list, ok, _ := resolve(s, p, b.root)
	if !ok {
		return nil, false
	}
	return list.Items()
}

// srcType is the type of the value at p in the schema converted from, as
// the rules before have left it: a value moved there keeps its type, a
// coerced one has the type it was coerced to.
func (b *binding) srcType(p path) (string, bool) { return typeAt(b.now, p, b.root) }

// dstType is the type of the field at p in the schema converted to.
func (b *binding) dstType(p path) (string, bool) { return typeAt(b.dst, p, b.root) }

func typeAt(s Shape, p path, root bool) (string, bool) {
	found, ok, _ := resolve(s, p, root)
	if !ok {
		return "", false
	}
	return found.Type(), true
}

// ruleNameOf is the rule's name, as the file writes it.
func ruleNameOf(r rule) string {
	name, _, _ := strings.Cut(r.String(), " ")
	return name
}
