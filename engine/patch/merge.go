package patch

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// Merge applies p, a JSON merge patch, to obj, as kube-apiserver merges
// (see mergePatch). obj must be valid JSON; p must hold no duplicated
// member, since the last of duplicates is the one that counts
// (schema.DropDuplicates drops the others). Errors: Invalid for a patch
// that is not an object (on the field "patch", as kube-apiserver answers
// it), BadRequest for one that is not JSON or is nested deeper than
// encoding/json reads.
func Merge(obj, p []byte) ([]byte, error) {
	if !gjson.ParseBytes(p).IsObject() {
		return nil, errNotObject(p)
	}
	if !gjson.ValidBytes(p) {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid merge patch: not JSON")
	}
	out, err := mergePatch(obj, p)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid merge patch: %v", err)
	}
	return out, nil
}

// errNotObject answers a merge patch that is not a JSON object as
// kube-apiserver does: a 422 on the field "patch".
func errNotObject(p []byte) error {
	value := string(p)
	if len(value) > 64 {
		value = value[:64] + "..."
	}
	msg := "Invalid value: " + strconv.Quote(value) + ": a merge patch must be a JSON object"
	return &engine.Error{Code: engine.CodeInvalid, Message: "patch: " + msg,
		Causes: []engine.FieldError{{Type: engine.CauseInvalid, Path: "patch", Message: msg}}}
}

// maxMergeDepth bounds the nesting a merge patch walks, as encoding/json
// (and so evanphx/json-patch, which refuses such a patch) bounds it.
const maxMergeDepth = 10000

var errMergeDepth = errors.New("exceeded max depth")

// mergePatch applies patch, a JSON merge patch (RFC 7386) that is an
// object, to obj, on their text: the members the patch does not reach
// (an object's managedFields, most of its spec) are copied as they are,
// never decoded nor encoded again, which evanphx/json-patch's MergePatch
// does to the whole object. It answers what that MergePatch answers
// (FuzzMergePatch holds the two to one answer), kube-apiserver's merge,
// which differs from the RFC in one place, the null members of objects
// inside a list the patch sets: dropped when the list replaces no value,
// null or a value that is not an object, kept when it replaces an object
// (the RFC keeps them always). Why not evanphx/json-patch still: it
// decodes both documents and encodes the whole result. JSON patches
// (RFC 6902: pointers, list indexes, tests, copies) stay with it.
// Both must be valid JSON, with no duplicated member in the patch
// (schema.DropDuplicates). Errors: a patch nested deeper than maxMergeDepth.
func mergePatch(obj, patch []byte) ([]byte, error) {
	m := merger{out: make([]byte, 0, len(obj)+len(patch))}
	cur, p := jsonscan.View(obj), jsonscan.View(patch)
	if err := m.value(cur[jsonscan.SkipSpace(cur, 0):], p[jsonscan.SkipSpace(p, 0):], 0); err != nil {
		return nil, err
	}
	return m.out, nil
}

// merger writes the merged document into out.
type merger struct{ out []byte }

// value appends what the patch value p makes of cur, the object's value
// ("" when it has none).
func (m *merger) value(cur, p string, depth int) error {
	switch {
	case depth > maxMergeDepth:
		return errMergeDepth
	case !isObjectText(cur):
		return m.pruned(p, depth)
	case isObjectText(p):
		return m.object(cur, p, depth)
	}
	m.out = append(m.out, p...) // no object replaces an object as it is
	return nil
}

// object appends the merge of the object p into the object cur: cur's
// members in their order, each patched or copied, then p's new members.
func (m *merger) object(cur, p string, depth int) error {
	var buf [16]patchMember
	ps := membersOf(p, buf[:0])
	m.out = append(m.out, '{')
	var err error
	jsonscan.EachMember(cur, func(kraw, raw string) {
		if err != nil {
			return
		}
		i := ps.find(kraw)
		if i < 0 {
			m.member(kraw, raw)
			return
		}
		pm := &ps.list[i]
		pm.used = true
		if pm.raw != "null" {
			m.key(kraw)
			err = m.value(raw, pm.raw, depth+1)
		}
	})
	for i := 0; i < len(ps.list) && err == nil; i++ {
		if pm := ps.list[i]; !pm.used && pm.raw != "null" {
			m.key(pm.kraw)
			err = m.pruned(pm.raw, depth+1)
		}
	}
	m.out = append(m.out, '}')
	return err
}

// pruned appends v without the null members of its objects, at any depth
// (a list's null items stay), as a value new to the object is set.
func (m *merger) pruned(v string, depth int) error {
	if depth > maxMergeDepth {
		return errMergeDepth
	}
	if !strings.Contains(v, "null") || v[0] != '{' && v[0] != '[' {
		m.out = append(m.out, v...)
		return nil
	}
	var err error
	if v[0] == '[' {
		m.out = append(m.out, '[')
		jsonscan.EachItem(v, func(item string) {
			if err == nil {
				m.comma()
				err = m.pruned(item, depth+1)
			}
		})
		m.out = append(m.out, ']')
		return err
	}
	m.out = append(m.out, '{')
	jsonscan.EachMember(v, func(kraw, raw string) {
		if err == nil && raw != "null" {
			m.key(kraw)
			err = m.pruned(raw, depth+1)
		}
	})
	m.out = append(m.out, '}')
	return err
}

// member appends a member as it is.
func (m *merger) member(kraw, raw string) {
	m.key(kraw)
	m.out = append(m.out, raw...)
}

// key appends a member's key and colon, after a comma unless it comes first.
func (m *merger) key(kraw string) {
	m.comma()
	m.out = append(append(m.out, kraw...), ':')
}

// comma separates a value from the one before it in the object or list
// being written.
func (m *merger) comma() {
	if last := m.out[len(m.out)-1]; last != '{' && last != '[' {
		m.out = append(m.out, ',')
	}
}

// patchMember is one member of a patch object; used once the object's
// member of that key has been merged.
type patchMember struct {
	key, kraw, raw string
	used           bool
}

// patchMembers are the members of a patch object, with an index by key
// when they are many, so that a large patch over a large object costs
// their sum, not their product.
type patchMembers struct {
	list  []patchMember
	index map[string]int
}

// indexFrom is the number of members from which a lookup goes through
// the index.
const indexFrom = 32

// membersOf lists p's members into buf.
func membersOf(p string, buf []patchMember) patchMembers {
	jsonscan.EachMember(p, func(kraw, raw string) {
		buf = append(buf, patchMember{key: jsonscan.Unquote(kraw), kraw: kraw, raw: raw})
	})
	ps := patchMembers{list: buf}
	if len(buf) >= indexFrom {
		ps.index = make(map[string]int, len(buf))
		for i, p := range buf {
			ps.index[p.key] = i
		}
	}
	return ps
}

// find returns the index of the member whose key kraw spells, or -1.
func (ps patchMembers) find(kraw string) int {
	key := jsonscan.Unquote(kraw)
	if ps.index != nil {
		if i, ok := ps.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range ps.list {
		if ps.list[i].key == key {
			return i
		}
	}
	return -1
}

// isObjectText reports whether v, a value's text, is an object.
func isObjectText(v string) bool { return v != "" && v[0] == '{' }
