package convert

import "slices"

// put sets the value at p to v, creating the objects on the way; a scalar
// or list where the path needs an object is replaced by one. The root
// path replaces the whole document.
func (d doc) put(p path, v *node) {
	n := d.root
	if p.isRoot() {
		*n = *v
		return
	}
	last := len(p.keys) - 1
	for i, k := range p.keys[:last] {
		c := d.a.child(n, k)
		if c == nil {
			c = d.a.node("")
			c.expanded = true
			d.a.setMember(n, k, p.quoted[i], c)
		}
		n = c
	}
	d.a.setMember(n, p.keys[last], p.quoted[last], v)
}

// putRaw sets the value at p to the JSON text raw.
func (d doc) putRaw(p path, raw string) { d.put(p, d.a.node(raw)) }

// setMember replaces or adds an object's member (kraw: key as JSON); a
// node that is no object becomes one.
func (a *arena) setMember(n *node, key, kraw string, v *node) {
	if !a.expand(n) {
		*n = node{expanded: true}
	}
	for i := range n.members {
		if n.members[i].val != nil && n.members[i].key == key {
			n.members[i].val = v
			return
		}
	}
	if len(n.members) == cap(n.members) {
		a.regrow(n)
	}
	n.members = append(n.members, member{key: key, kraw: kraw, val: v})
}

// regrow moves an object's members to the end of the arena, with room
// for as many more.
func (a *arena) regrow(n *node) {
	start, size := len(a.members), len(n.members)
	a.members = slices.Grow(a.members, 2*size+2)
	a.members = append(a.members, n.members...)
	a.members = a.members[:start+2*size+2] // the room is the arena's, which release clears
	n.members = a.members[start : start+size : start+2*size+2]
}

// remove deletes the value at p and then every object the deletion left
// empty, except members of the document itself: a move out of a nested
// object must not leave an empty object behind (the target would prune it
// and the way back would not recreate it), but spec and status stay, as
// schemas often require them. Removing an absent path does nothing.
func (d doc) remove(p path) {
	var buf [8]*node
	on := d.walk(p, buf[:0])
	depth := len(p.keys)
	if depth == 0 || len(on) != depth+1 {
		return
	}
	for depth > 2 && on[depth-1].live() == 1 {
		depth--
	}
	on[depth-1].deleteMember(p.keys[depth-1])
}

// deleteOnly deletes the value at p, and nothing else.
func (d doc) deleteOnly(p path) {
	var buf [8]*node
	on := d.walk(p, buf[:0])
	if len(p.keys) > 0 && len(on) == len(p.keys)+1 {
		on[len(p.keys)-1].deleteMember(p.keys[len(p.keys)-1])
	}
}

// walk returns the nodes on the way to p, the root first, up to the first
// key that is missing (or whose parent is no object): len(p.keys)+1 nodes
// when p exists.
func (d doc) walk(p path, buf []*node) []*node {
	n := d.root
	out := append(buf, n)
	for _, k := range p.keys {
		if n = d.a.child(n, k); n == nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// deleteMember removes an object's member, leaving it as a tombstone.
func (n *node) deleteMember(key string) {
	for i := range n.members {
		if n.members[i].val != nil && n.members[i].key == key {
			n.members[i].val = nil
			return
		}
	}
}

// live counts an object's members, up to two.
func (n *node) live() int {
	count := 0
	for i := 0; i < len(n.members) && count < 2; i++ {
		if n.members[i].val != nil {
			count++
		}
	}
	return count
}

// relocate puts v at to and removes from. Writing first keeps the parents
// of from alive when they also hold to; when one path is inside the
// other, from must go first or it would take the new value with it.
func (d doc) relocate(from, to path, v *node) {
	if from.overlaps(to) {
		d.remove(from)
		d.put(to, v)
		return
	}
	d.put(to, v)
	d.remove(from)
}
