package convert

import (
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// node is one JSON value of a document being converted. Until a rule
// reaches into it, a node is its JSON text (raw), a view of the bytes it
// came from; an object a rule reaches into is expanded once into members,
// whose values are nodes again. Why: a 2 KB object read key by key with
// gjson would be scanned from its start at every rule; here each object on
// a rule's path is scanned once, everything else is copied once, when the
// result is written.
type node struct {
	raw      string
	members  []member // when expanded
	expanded bool
}

// member is one member of an expanded object. A deleted member stays, its
// value nil, so that deleting copies nothing.
type member struct {
	key  string // unescaped
	kraw string // as JSON text, quotes included
	val  *node
}

// arena holds the members and values of every object one conversion
// expands, and the values rules write. Why: a conversion makes a few dozen
// of them; allocating them one by one made the garbage collector the
// largest cost. It only grows: a slice or pointer it handed out stays
// valid when it moves, as nothing is reached through the arena itself.
type arena struct {
	members []member
	vals    []node
}

// doc is a document being converted: a JSON object, or inside forEach a
// list item, and the arena its expansions come from.
type doc struct {
	root *node
	a    *arena
}

// arenas recycles arenas between conversions.
var arenas = sync.Pool{New: func() any {
	return &arena{members: make([]member, 0, 192), vals: make([]node, 0, 128)}
}}

// newDoc returns the document of obj, without copying it: obj must not
// change while the document is in use. Call release when done.
func newDoc(obj []byte) doc {
	a := arenas.Get().(*arena)
	return doc{root: a.node(strings.TrimSpace(jsonscan.View(obj))), a: a}
}

// maxPooled is the most members an arena may hold and go back to the
// pool: one huge object must not keep its arena's memory for good.
const maxPooled = 4096

// release returns the arena for another conversion; nothing of the
// document may be used after. Why clear: a pooled arena must not keep the
// last object's bytes alive.
func (d doc) release() {
	if cap(d.a.members) > maxPooled || cap(d.a.vals) > maxPooled {
		return
	}
	clear(d.a.members)
	clear(d.a.vals)
	d.a.members, d.a.vals = d.a.members[:0], d.a.vals[:0]
	arenas.Put(d.a)
}

// item returns the document of one list item, sharing d's arena.
func (d doc) item(raw string) doc { return doc{root: d.a.node(raw), a: d.a} }

// node returns a new node holding raw, from the arena.
func (a *arena) node(raw string) *node {
	a.vals = append(a.vals, node{raw: raw})
	return &a.vals[len(a.vals)-1]
}

// expand turns an object's text into members; it reports false for a
// value that is no object.
func (a *arena) expand(n *node) bool {
	if n.expanded {
		return true
	}
	if !strings.HasPrefix(n.raw, "{") {
		return false
	}
	first := len(a.vals)
	firstMember := len(a.members)
	jsonscan.EachMember(n.raw, func(kraw, raw string) {
		a.members = append(a.members, member{key: jsonscan.Unquote(kraw), kraw: kraw})
		a.vals = append(a.vals, node{raw: raw})
	})
	count := len(a.members) - firstMember
	// Room for the members rules add, so that adding one copies nothing.
	a.members = append(a.members, member{}, member{})
	members := a.members[firstMember : firstMember+count : firstMember+count+2]
	// Pointers are taken once the object is read whole: appending above
	// may have moved the values.
	for i := range members {
		members[i].val = &a.vals[first+i]
	}
	n.raw, n.members, n.expanded = "", members, true
	return true
}

// child returns the value of an object's member, nil when there is none.
func (a *arena) child(n *node, key string) *node {
	if !a.expand(n) {
		return nil
	}
	for i := range n.members {
		if n.members[i].val != nil && n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// lookup returns the node at p, nil when absent; the root path is the root.
func (d doc) lookup(p path) *node {
	n := d.root
	for _, k := range p.keys {
		if n = d.a.child(n, k); n == nil {
			return nil
		}
	}
	return n
}

// value returns the value at p as gjson sees it (absent: the zero Result).
func (d doc) value(p path) gjson.Result {
	if n := d.lookup(p); n != nil {
		return gjson.Parse(n.text())
	}
	return gjson.Result{}
}

// text is the node's JSON text.
func (n *node) text() string {
	if !n.expanded {
		return n.raw
	}
	return string(n.appendTo(nil))
}

// appendTo writes the node's JSON text.
func (n *node) appendTo(out []byte) []byte {
	if !n.expanded {
		return append(out, n.raw...)
	}
	out = append(out, '{')
	first := true
	for _, m := range n.members {
		if m.val == nil {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		out = append(append(out, m.kraw...), ':')
		out = m.val.appendTo(out)
		first = false
	}
	return append(out, '}')
}

// bytes writes the document, with room for what rules usually add.
func (d doc) bytes(sizeHint int) []byte {
	return d.root.appendTo(make([]byte, 0, sizeHint+sizeHint/8+64))
}
