package apply

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// entry is one managedFields entry as stored, its members read in one pass
// (each Get would scan the entry again, field set included).
type entry struct {
	raw                                         string
	apiVersion, manager, operation, subresource string
	time                                        gjson.Result // Index: its offset in raw
	fields                                      gjson.Result // fieldsV1, Index: its offset in raw
}

// readEntries reads a managedFields list.
func readEntries(list gjson.Result) []entry {
	var out []entry
	list.ForEach(func(_, e gjson.Result) bool {
		en := entry{raw: e.Raw}
		gjson.Parse(e.Raw).ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "apiVersion":
				en.apiVersion = v.Str
			case "manager":
				en.manager = v.Str
			case "operation":
				en.operation = v.Str
			case "subresource":
				en.subresource = v.Str
			case "time":
				en.time = v
			case "fieldsV1":
				en.fields = v
			}
			return true
		})
		out = append(out, en)
		return true
	})
	return out
}

// updated is the entry's JSON with its time set to now and the paths
// added to its field set; false when its field set cannot take them. The
// two values are replaced where they lie, the later one first, so that the
// rest of the entry is copied once, as it is.
func (e entry) updated(added [][]string, now string) (string, bool) {
	type edit struct {
		at, n int
		with  string
	}
	var edits []edit
	if len(added) > 0 {
		if !e.fields.IsObject() {
			return "", false
		}
		fields, ok := addFields(e.fields.Raw, added)
		if !ok {
			return "", false
		}
		edits = append(edits, edit{e.fields.Index, len(e.fields.Raw), fields})
	}
	if e.time.Index > 0 {
		edits = append(edits, edit{e.time.Index, len(e.time.Raw), string(quote(now))})
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.at - a.at })
	raw := e.raw
	for _, ed := range edits {
		raw = raw[:ed.at] + ed.with + raw[ed.at+ed.n:]
	}
	if e.time.Index > 0 {
		return raw, true
	}
	out, err := sjson.Set(raw, "time", now) // an entry without a time (sent by a client)
	return out, err == nil
}

// sorted is the list of entries with entries[own] replaced by ownRaw,
// whose time is now, sorted as kube-apiserver sorts them: by operation,
// time, manager, apiVersion. One entry (a controller's own object) needs
// no sort.
func sorted(entries []entry, own int, ownRaw, now string) []byte {
	if len(entries) == 1 {
		return append(append(append(make([]byte, 0, len(ownRaw)+2), '['), ownRaw...), ']')
	}
	type item struct {
		raw, op, manager, version string
		t                         int64
	}
	list := make([]item, len(entries))
	for j, e := range entries {
		list[j] = item{raw: e.raw, op: e.operation, manager: e.manager, version: e.apiVersion}
		ts := e.time.Str
		if j == own {
			list[j].raw, ts = ownRaw, now
		}
		if tt, err := time.Parse(time.RFC3339, ts); err == nil {
			list[j].t = tt.Unix()
		}
	}
	slices.SortStableFunc(list, func(p, q item) int {
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
	var b bytes.Buffer
	b.WriteByte('[')
	for j, e := range list {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.raw)
	}
	b.WriteByte(']')
	return b.Bytes()
}
