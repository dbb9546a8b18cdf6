package apply

import (
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// fastUpdate answers Update without decoding the objects when the result
// is known, for the updates controllers and most clients send:
//
//   - one that changes nothing leaves managedFields as they are;
//   - one that changes only scalar values its manager alone already owns,
//     through an Update entry of the same apiVersion and subresource,
//     leaves every field set as it is and moves that entry's time to now
//     (kube-apiserver's managedFieldsUpdater), re-sorted as kube-apiserver
//     sorts entries;
//   - one that also adds members (labels, annotations, fields of a plain
//     schema: see addable) that no manager owns gives them to that entry
//     too, as the FieldManager's Added set.
//
// Anything else (a field removed, an object or list added or changed, a
// field another manager also owns, an entry of another apiVersion, whose
// paths name fields as that version does) takes the full merge.
// liveFields are live's managedFields. sent is the managedFields the
// request carried (nil: none); a copy of live's counts as none, as
// kube-apiserver's decodeLiveOrNew reads it.
func (k *Kind) fastUpdate(version, apiVersion, subresource string, live, liveFields, obj, sent []byte, manager string, now time.Time) ([]byte, bool, Diff) {
	d := differ{addable: k.addable(version, subresource)}
	// Views of the bytes, not copies: nothing the walk keeps outlives this
	// call but the paths' names, which fastUpdate copies into its answer.
	// The path has room for a deep object, so that the walk appends to it
	// without allocating at each level.
	d.Complete = d.object(gjson.Parse(jsonscan.View(live)), gjson.Parse(jsonscan.View(obj)), make([]string, 0, 16))
	list := gjson.Parse(jsonscan.View(liveFields))
	// Sent as read, in any key order: client-go re-encodes managedFields
	// in its structs' order, PostgreSQL's jsonb keeps its own.
	if !d.Complete || !list.IsArray() || subresource == "" && sent != nil && !jsoneq.Equal(sent, liveFields) {
		return nil, false, d.Diff
	}
	if len(d.Changed) == 0 && len(d.Added) == 0 {
		return liveFields, true, d.Diff
	}
	entries := readEntries(list)
	own := -1
	for i, e := range entries {
		if e.apiVersion != apiVersion {
			return nil, false, d.Diff // its fields have other names: see TestFastUpdateAcrossVersions
		}
		if e.manager == manager && e.operation == "Update" && e.subresource == subresource {
			own = i
		}
	}
	if own < 0 || !ownership(entries, own, d.Diff) {
		return nil, false, d.Diff
	}
	stamp := now.UTC().Format(time.RFC3339)
	ownRaw, ok := entries[own].updated(d.Added, stamp)
	if !ok {
		return nil, false, d.Diff
	}
	return sorted(entries, own, ownRaw, stamp), true, d.Diff
}

// Diff is what the update shortcut's walk of the stored object and the
// update found (metadata's server-owned members aside): the paths of the
// scalar values the update replaces, and of the members it adds with
// their members. Complete says these are all its differences; otherwise
// the walk met one it does not name (a list or object replaced or
// changed, a member removed, a null), and the update may differ anywhere.
type Diff struct {
	Complete       bool
	Changed, Added [][]string
}

// Outside reports whether a complete Diff changes something outside the
// top-level members named: the one walk of both objects tells the write
// pipeline whether to bump metadata.generation, too.
func (d Diff) Outside(names ...string) bool {
	for _, paths := range [][][]string{d.Changed, d.Added} {
		for _, p := range paths {
			if !slices.Contains(names, p[0]) {
				return true
			}
		}
	}
	return false
}

// ownership reports whether entries[own] alone owns every changed path,
// and no entry owns an added one.
func ownership(entries []entry, own int, d Diff) bool {
	for i, e := range entries {
		for _, p := range d.Changed {
			if owns(e.fields, p) != (i == own) {
				return false
			}
		}
		for _, p := range d.Added {
			if owns(e.fields, p) {
				return false
			}
		}
	}
	return true
}

// addable says where an added member is tracked granularly by the
// FieldManager, so that its Added set is the member's path (and its
// members'): metadata's labels and annotations (granular maps of
// ObjectMeta) and their members and, in a version whose schema tracks
// every map granularly (see plainSchema), anywhere but metadata, outside
// status when it belongs to the other endpoint (reset fields).
func (k *Kind) addable(version, subresource string) func(path []string) bool {
	v := k.versions[version]
	return func(path []string) bool {
		switch {
		case path[0] == "metadata" && (len(path) == 2 || len(path) == 3):
			return path[1] == "labels" || path[1] == "annotations"
		case path[0] == "metadata" || !v.plain:
			return false
		case subresource == "status":
			return path[0] == "status"
		}
		return !(v.Status && path[0] == "status")
	}
}

// serverMeta are the metadata fields managedFields never record.
var serverMeta = []string{"managedFields", "resourceVersion", "generation"}

// differ collects the differences between two objects that the shortcut
// knows the answer for.
type differ struct {
	addable func(path []string) bool
	Diff
}

// object compares two values at path; false for a difference the
// shortcut cannot answer. Equal bytes end the walk at once: most of an
// update is what it read.
func (d *differ) object(a, b gjson.Result, path []string) bool {
	if a.Raw == b.Raw {
		return true
	}
	if !a.IsObject() || !b.IsObject() {
		return d.scalar(a, b, path)
	}
	var aBuf, bBuf [16]member
	am, bm := members(a, aBuf[:0]), members(b, bBuf[:0])
	for _, m := range am {
		if d.skip(path, m.key) {
			continue
		}
		bv, ok := find(bm, m.key)
		if !ok || !d.object(m.value, bv, append(path, m.key)) {
			return false
		}
	}
	for _, m := range bm {
		if _, ok := find(am, m.key); ok || d.skip(path, m.key) {
			continue
		}
		if !d.add(append(slices.Clip(path), m.key), m.value) {
			return false
		}
	}
	return true
}

// add records a member added at path: a scalar, or an object whose
// node and members are all added (the FieldManager's Added set has the
// map itself and each member); false for a list, a null, or a place
// addable does not allow, for the value or its members.
func (d *differ) add(path []string, v gjson.Result) bool {
	if !d.addable(path) || !isScalar(v) && !v.IsObject() {
		return false
	}
	d.Added = append(d.Added, path)
	if !v.IsObject() {
		return true
	}
	if !d.addable(append(slices.Clip(path), "")) {
		return false // an object where only scalars go (a label's value)
	}
	ok := true
	v.ForEach(func(k, member gjson.Result) bool {
		ok = d.add(append(slices.Clip(path), k.Str), member)
		return ok
	})
	return ok
}

// scalar compares two values of which one at least is not an object.
// Text that differs but holds the same value (a string escaped otherwise)
// is no change, as the pipeline's comparisons judge it.
func (d *differ) scalar(a, b gjson.Result, path []string) bool {
	switch {
	case !isScalar(a) || !isScalar(b):
		return false // an object or list replaced or changed
	case !sameScalar.EqualText(a.Raw, b.Raw):
		d.Changed = append(d.Changed, slices.Clone(path))
	}
	return true
}

// sameScalar compares two scalars as engine/resource's comparisons do.
var sameScalar = jsoneq.Options{NumbersAsWritten: true}

// skip: metadata's server-owned members are not compared.
func (d *differ) skip(path []string, key string) bool {
	return len(path) == 1 && path[0] == "metadata" && slices.Contains(serverMeta, key)
}

func isScalar(v gjson.Result) bool {
	return v.Exists() && v.Type != gjson.Null && !v.IsObject() && !v.IsArray()
}

type member struct {
	key   string
	value gjson.Result
}

// members lists an object's members into buf.
func members(obj gjson.Result, buf []member) []member {
	obj.ForEach(func(k, v gjson.Result) bool {
		buf = append(buf, member{k.Str, v})
		return true
	})
	return buf
}

func find(ms []member, key string) (gjson.Result, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.value, true
		}
	}
	return gjson.Result{}, false
}

// owns reports whether a fieldsV1 set holds path or an atomic ancestor.
func owns(fields gjson.Result, path []string) bool {
	node := fields
	for _, k := range path {
		if node = fieldOf(node, k); !node.Exists() {
			return false
		}
		if node.Raw == "{}" {
			return true
		}
	}
	return true
}

// fieldOf is the member "f:name" of a field set's node (none when it has
// none), found without building the name: every update asks it for each
// path it changed, of each entry.
func fieldOf(node gjson.Result, name string) gjson.Result {
	var found gjson.Result
	node.ForEach(func(k, v gjson.Result) bool {
		if len(k.Str) == len(name)+2 && strings.HasPrefix(k.Str, "f:") && k.Str[2:] == name {
			found = v
			return false
		}
		return true
	})
	return found
}
