package convert

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// Remainder compares an object with its projection through a version that
// cannot hold all of it (see Project) and returns what the projection
// lost, for the caller to keep beside the object: a JSON list of entries
// {"path": [keys], "original": value, "projected": value}, where original
// or projected is left out when the field is absent there. Objects are
// compared key by key and lists and scalars as whole values, so an entry
// stands at the deepest object key where the two differ: the rest of an
// unwrapped list, a rounded number, a field the version lacks, a constant
// a rule set. It returns nil when the projection lost nothing. Both
// arguments must be JSON objects.
func Remainder(original, projected []byte) []byte {
	d := differ{out: []byte{'['}}
	d.value(strings.TrimSpace(jsonscan.View(original)), strings.TrimSpace(jsonscan.View(projected)))
	if len(d.out) == 1 {
		return nil
	}
	return append(d.out, ']')
}

// differ collects the entries of a Remainder. Values are JSON texts; ""
// is an absent value.
type differ struct {
	keys []string // the path being compared
	out  []byte
}

func (d *differ) value(o, p string) {
	switch {
	case o == p: // the same text: most of an object, checked without parsing
	case strings.HasPrefix(o, "{") && strings.HasPrefix(p, "{"):
		d.object(o, p)
	case o == "" || p == "" || !jsoneq.EqualText(o, p):
		d.entry(o, p)
	}
}

// object compares two objects member by member.
func (d *differ) object(o, p string) {
	var ob, pb [16]keyValue
	om, pm := members(o, ob[:0]), members(p, pb[:0])
	for _, m := range om {
		d.keys = append(d.keys, m.key)
		d.value(m.raw, find(pm, m.key))
		d.keys = d.keys[:len(d.keys)-1]
	}
	for _, m := range pm {
		if find(om, m.key) == "" {
			d.keys = append(d.keys, m.key)
			d.entry("", m.raw)
			d.keys = d.keys[:len(d.keys)-1]
		}
	}
}

// keyValue is one member of an object's text.
type keyValue struct{ key, raw string }

func members(obj string, buf []keyValue) []keyValue {
	jsonscan.EachMember(obj, func(kraw, raw string) { buf = append(buf, keyValue{jsonscan.Unquote(kraw), raw}) })
	return buf
}

// find returns the value of key, "" when absent.
func find(ms []keyValue, key string) string {
	for _, m := range ms {
		if m.key == key {
			return m.raw
		}
	}
	return ""
}

// entry appends one entry; "" is an absent value.
func (d *differ) entry(o, p string) {
	if len(d.out) > 1 {
		d.out = append(d.out, ',')
	}
	d.out = append(d.out, `{"path":[`...)
	for i, k := range d.keys {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		d.out = gjson.AppendJSONString(d.out, k)
	}
	d.out = append(d.out, ']')
	if o != "" {
		d.out = append(append(d.out, `,"original":`...), o...)
	}
	if p != "" {
		d.out = append(append(d.out, `,"projected":`...), p...)
	}
	d.out = append(d.out, '}')
}

// Restore puts back into obj what a remainder says a projection lost,
// entry by entry, where obj still holds what the projection held (the same
// value, or nothing in both): there the user did not change what they
// could see, so the original is still theirs. Where obj holds something
// else, the user's change wins and the entry is dropped. obj is not
// modified. Errors: Internal when remainder is not a list of entries as
// Remainder writes them.
func Restore(obj, remainder []byte) ([]byte, error) {
	if len(remainder) == 0 {
		return obj, nil
	}
	list := gjson.ParseBytes(remainder)
	if !list.IsArray() {
		return nil, engine.Errorf(engine.CodeInternal, "restore: the remainder is not a list")
	}
	d := newDoc(obj)
	defer d.release()
	var err error
	list.ForEach(func(_, e gjson.Result) bool {
		err = d.restore(e)
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return d.bytes(len(obj)), nil
}

// restore applies one entry of a remainder.
func (d doc) restore(e gjson.Result) error {
	keys, err := entryKeys(e)
	if err != nil {
		return err
	}
	p := newPath(keys)
	cur, projected, original := d.value(p), e.Get("projected"), e.Get("original")
	if cur.Exists() != projected.Exists() || cur.Exists() && !jsoneq.EqualText(cur.Raw, projected.Raw) {
		return nil
	}
	switch {
	case !original.Exists():
		d.deleteOnly(p)
	case d.settable(p):
		d.putRaw(p, original.Raw)
	}
	return nil
}

func entryKeys(e gjson.Result) ([]string, error) {
	ps := e.Get("path")
	if !ps.IsArray() {
		return nil, engine.Errorf(engine.CodeInternal, "restore: an entry of the remainder has no path")
	}
	var keys []string
	for _, k := range ps.Array() {
		if k.Type != gjson.String {
			return nil, engine.Errorf(engine.CodeInternal, "restore: path %s: keys must be strings", ps.Raw)
		}
		keys = append(keys, k.Str)
	}
	return keys, nil
}

// settable reports whether the value at p exists or the closest ancestor
// that exists is an object: the user may have turned a parent into
// something else, and the original then has no place to go.
func (d doc) settable(p path) bool {
	var buf [8]*node
	on := d.walk(p, buf[:0])
	return len(on) == len(p.keys)+1 || d.a.expand(on[len(on)-1])
}
