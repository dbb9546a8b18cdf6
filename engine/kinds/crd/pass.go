package crd

import (
	"cmp"
	"crypto/sha256"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// A pass (hand, reconcile) judges every definition against every other of
// its group and against the snapshot. Read naively, that is quadratic in
// the number of definitions: each judgement would parse every other
// definition and scan every resource. So a pass indexes what it reads
// once, and what a definition holds is parsed once per version of it.

// definition is what precedence and status read of one stored definition.
type definition struct {
	obj     []byte // the version of the object this was read from
	name    string
	spec    string // a hash of spec, to tell a change of spec from a status write
	group   string
	created string // metadata.creationTimestamp
	names   names
	// what the object's status holds, read on first use (see written):
	// a pass judges every definition, and most are as they were.
	old     *status
	oldJSON string
	stored  []string // the storedVersions the status must hold
	// whether the spec matches the file resource comparedWith (see
	// servedByFile), kept from the previous version of the object while
	// its spec is the same
	comparedWith *registry.Resource
	matches      bool
}

// written returns what the object's status holds, its JSON, and the
// storedVersions it must hold.
func (d *definition) written() (status, string, []string) {
	if d.old == nil {
		old := readStatus(d.obj)
		d.old, d.oldJSON, d.stored = &old, old.json(), storedVersions(d.obj, old.StoredVersions)
	}
	return *d.old, d.oldJSON, d.stored
}

// definitionOf reads a stored definition, or returns what was read from
// the same version of it before.
func (c *Controller) definitionOf(obj []byte) *definition {
	return c.definitionNamed(nameOf(obj), obj)
}

// definitionNamed is definitionOf when the name is known.
func (c *Controller) definitionNamed(name string, obj []byte) *definition {
	was, ok := c.parsed[name]
	if ok && sameBytes(was.obj, obj) {
		return was
	}
	d := &definition{obj: obj, name: name, group: gjson.GetBytes(obj, "spec.group").Str,
		created: gjson.GetBytes(obj, "metadata.creationTimestamp").Str, names: readNames(obj),
		spec: specHash(obj)}
	if ok && was.spec == d.spec {
		d.comparedWith, d.matches = was.comparedWith, was.matches
	}
	if c.parsed == nil {
		c.parsed = map[string]*definition{}
	}
	c.parsed[name] = d
	return d
}

// sameBytes reports whether a and b are the same slice, not only equal:
// an object is never modified in place, only replaced.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// before reports whether d was created before o: creationTimestamp first,
// then name, as two definitions may be created in one second.
func (d *definition) before(o *definition) bool {
	return cmp.Or(cmp.Compare(d.created, o.created), cmp.Compare(d.name, o.name)) < 0
}

// pass indexes the definitions and a snapshot for one pass.
type pass struct {
	byGroup  map[string][]*definition
	snap     *registry.Snapshot
	served   map[string]*registry.Resource // by File
	files    map[string]holders            // names held by definition files, by group
	refusals map[string][]string           // the problems' reasons, by File
}

// newPass indexes c.objects, and snap with its problems (nil snap: only
// the objects).
func (c *Controller) newPass(snap *registry.Snapshot, problems []registry.Problem) *pass {
	p := &pass{byGroup: map[string][]*definition{}, snap: snap, served: map[string]*registry.Resource{},
		files: map[string]holders{}, refusals: map[string][]string{}}
	for name, obj := range c.objects {
		d := c.definitionNamed(name, obj)
		p.byGroup[d.group] = append(p.byGroup[d.group], d)
	}
	if snap == nil {
		return p
	}
	for _, r := range snap.Resources() {
		p.served[r.File] = r
		if !registry.IsAPIFile(r.File) {
			p.addFile(r)
		}
	}
	for _, r := range registry.Reviews() { // served by handlers, held as the built-ins' names are
		p.addFile(r)
	}
	for _, pr := range problems {
		p.refusals[pr.File] = append(p.refusals[pr.File], pr.Reason)
	}
	return p
}

// addFile adds the names of r, which a definition file or the server
// itself holds.
func (p *pass) addFile(r *registry.Resource) {
	if p.files[r.Group] == nil {
		p.files[r.Group] = holders{}
	}
	p.files[r.Group].addFile(r)
}

// heldBefore returns the names of d's group held by the definitions
// created before d.
func (p *pass) heldBefore(d *definition) holders {
	h := holders{}
	for _, other := range p.byGroup[d.group] {
		if other.before(d) {
			h.add(other.names, "CustomResourceDefinition "+other.name)
		}
	}
	return h
}

// passOf returns the pass reconcile is in, when it is over snap, or a new one.
func (c *Controller) passOf(snap *registry.Snapshot, problems []registry.Problem) *pass {
	if c.current != nil && c.current.snap == snap {
		return c.current
	}
	return c.newPass(snap, problems)
}

// specHash hashes a definition's spec: keeping a copy of every spec would
// cost as much memory again as the definitions themselves.
func specHash(obj []byte) string {
	sum := sha256.Sum256([]byte(gjson.GetBytes(obj, "spec").Raw))
	return string(sum[:])
}
