package apply

import (
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// fastUpdate answers Update without decoding the objects when the result
// is known: an update that changes only scalar values its manager alone
// already owns, through an Update entry of the same apiVersion and
// subresource, leaves every field set as it is and moves that entry's
// time to now (kube-apiserver's managedFieldsUpdater), re-sorted as
// kube-apiserver sorts entries; an update that changes nothing leaves
// managedFields as they are. Anything else (a field added or removed, a
// list changed, a field another manager also owns, an entry of another
// apiVersion, whose paths name fields as that version does) takes the
// full merge.
func fastUpdate(apiVersion, subresource string, live, obj []byte, manager string, now time.Time) ([]byte, bool) {
	entries := gjson.GetBytes(live, "metadata.managedFields").Array()
	if len(entries) == 0 || subresource == "" && gjson.GetBytes(obj, "metadata.managedFields").Exists() {
		return nil, false
	}
	var changed [][]string
	if !diffScalars(gjson.ParseBytes(live), gjson.ParseBytes(obj), nil, &changed) {
		return nil, false
	}
	raw := []byte(gjson.GetBytes(live, "metadata.managedFields").Raw)
	if len(changed) == 0 {
		return raw, true
	}
	own := -1
	for i, e := range entries {
		if e.Get("apiVersion").Str != apiVersion {
			return nil, false // its fields have other names: see TestFastUpdateAcrossVersions
		}
		if e.Get("manager").Str == manager && e.Get("operation").Str == "Update" && e.Get("subresource").Str == subresource {
			own = i
		}
	}
	if own < 0 {
		return nil, false
	}
	for _, p := range changed {
		for i, e := range entries {
			if owns(e.Get("fieldsV1"), p) != (i == own) {
				return nil, false
			}
		}
	}
	return retime(entries, own, now.UTC().Format(time.RFC3339)), true
}

// serverMeta are the metadata fields managedFields never record.
var serverMeta = []string{"managedFields", "resourceVersion", "generation"}

// diffScalars collects in changed the paths of scalar values that differ
// between a and b, and reports false for any other difference.
func diffScalars(a, b gjson.Result, path []string, changed *[][]string) bool {
	if !a.IsObject() || !b.IsObject() {
		if a.IsObject() || b.IsObject() || a.IsArray() || b.IsArray() {
			return a.Raw == b.Raw
		}
		if a.Type == gjson.Null || b.Type == gjson.Null {
			return a.Type == b.Type
		}
		if a.Type != b.Type || a.Raw != b.Raw {
			*changed = append(*changed, slices.Clone(path))
		}
		return true
	}
	am, bm := a.Map(), b.Map()
	for k, av := range am {
		if len(path) == 1 && path[0] == "metadata" && slices.Contains(serverMeta, k) {
			continue
		}
		bv, ok := bm[k]
		if !ok || !diffScalars(av, bv, append(path, k), changed) {
			return false
		}
	}
	for k := range bm {
		if _, ok := am[k]; !ok && !(len(path) == 1 && path[0] == "metadata" && slices.Contains(serverMeta, k)) {
			return false
		}
	}
	return true
}

// owns reports whether a fieldsV1 set holds path or an atomic ancestor.
func owns(fields gjson.Result, path []string) bool {
	node := fields
	for _, k := range path {
		node = node.Get(gjson.Escape("f:" + k))
		if !node.Exists() {
			return false
		}
		if node.Raw == "{}" {
			return true
		}
	}
	return true
}

// retime sets the time of entries[i] and sorts them as kube-apiserver
// does: by operation, time, manager, apiVersion.
func retime(entries []gjson.Result, i int, now string) []byte {
	type entry struct {
		raw, op, manager, version string
		t                         int64
	}
	list := make([]entry, len(entries))
	for j, e := range entries {
		list[j] = entry{raw: e.Raw, op: e.Get("operation").Str, manager: e.Get("manager").Str, version: e.Get("apiVersion").Str}
		ts := e.Get("time").Str
		if j == i {
			ts = now
			list[j].raw = setTime(e, now)
		}
		if tt, err := time.Parse(time.RFC3339, ts); err == nil {
			list[j].t = tt.Unix()
		}
	}
	slices.SortStableFunc(list, func(p, q entry) int {
		switch {
		case p.op != q.op:
			return strings.Compare(p.op, q.op)
		case p.t != q.t:
			return int(p.t - q.t)
		case p.manager != q.manager:
			return strings.Compare(p.manager, q.manager)
		}
		return strings.Compare(p.version, q.version)
	})
	var b strings.Builder
	b.WriteByte('[')
	for j, e := range list {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.raw)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

func setTime(e gjson.Result, now string) string {
	out, err := sjson.Set(e.Raw, "time", now)
	if err != nil {
		return e.Raw // cannot happen: e is an object
	}
	return out
}
