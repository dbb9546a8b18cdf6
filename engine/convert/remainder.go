package convert

import (
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
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
	d.value(gjson.ParseBytes(original), gjson.ParseBytes(projected))
	if len(d.out) == 1 {
		return nil
	}
	return append(d.out, ']')
}

// differ collects the entries of a Remainder.
type differ struct {
	keys []string // the path being compared
	out  []byte
}

func (d *differ) value(o, p gjson.Result) {
	if o.IsObject() && p.IsObject() {
		d.object(o, p)
		return
	}
	if o.Exists() != p.Exists() || o.Exists() && !equal(o, p) {
		d.entry(o, p)
	}
}

func (d *differ) object(o, p gjson.Result) {
	om, pm := o.Map(), p.Map()
	o.ForEach(func(k, ov gjson.Result) bool {
		d.keys = append(d.keys, k.Str)
		d.value(ov, pm[k.Str])
		d.keys = d.keys[:len(d.keys)-1]
		return true
	})
	p.ForEach(func(k, pv gjson.Result) bool {
		if _, ok := om[k.Str]; !ok {
			d.keys = append(d.keys, k.Str)
			d.entry(gjson.Result{}, pv)
			d.keys = d.keys[:len(d.keys)-1]
		}
		return true
	})
}

// entry appends one entry; a zero Result is an absent value.
func (d *differ) entry(o, p gjson.Result) {
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
	if o.Exists() {
		d.out = append(append(d.out, `,"original":`...), o.Raw...)
	}
	if p.Exists() {
		d.out = append(append(d.out, `,"projected":`...), p.Raw...)
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
	list := gjson.ParseBytes(remainder)
	if len(remainder) == 0 {
		return obj, nil
	}
	if !list.IsArray() {
		return nil, engine.Errorf(engine.CodeInternal, "restore: the remainder is not a list")
	}
	var err error
	list.ForEach(func(_, e gjson.Result) bool {
		obj, err = restoreEntry(obj, e)
		return err == nil
	})
	return obj, err
}

// restoreEntry applies one entry of a remainder.
func restoreEntry(obj []byte, e gjson.Result) ([]byte, error) {
	keys, err := entryKeys(e)
	if err != nil {
		return nil, err
	}
	p := newPath(keys)
	cur, projected, original := get(obj, p), e.Get("projected"), e.Get("original")
	if cur.Exists() != projected.Exists() || cur.Exists() && !equal(cur, projected) {
		return obj, nil
	}
	switch {
	case p.isRoot():
		return []byte(original.Raw), nil
	case !original.Exists():
		out, err := sjson.DeleteBytes(obj, p.set)
		if err != nil {
			return nil, engine.Errorf(engine.CodeInternal, "restore: delete %s: %v", p, err)
		}
		return out, nil
	case !settable(obj, p):
		return obj, nil
	}
	out, err := sjson.SetRawBytes(obj, p.set, []byte(original.Raw))
	if err != nil {
		return nil, engine.Errorf(engine.CodeInternal, "restore: set %s: %v", p, err)
	}
	return out, nil
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

// settable reports whether the closest ancestor of p that exists is an
// object: the user may have turned a parent into something else, and the
// original then has no place to go.
func settable(obj []byte, p path) bool {
	for i := len(p.keys) - 1; i > 0; i-- {
		if a := get(obj, newPath(p.keys[:i])); a.Exists() {
			return a.IsObject()
		}
	}
	return true
}
