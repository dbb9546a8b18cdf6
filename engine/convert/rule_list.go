package convert

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// wrap turns the value at from into a one-item list at to.
type wrap struct{ from, to path }

func (r wrap) apply(d doc) {
	if v := d.lookup(r.from); v != nil {
		d.relocate(r.from, r.to, d.a.node("["+v.text()+"]"))
	}
}

func (r wrap) inverse() rule  { return unwrap{from: r.to, to: r.from} }
func (r wrap) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r wrap) String() string { return flow("wrap", "from", r.from.text, "to", r.to.text) }

// unwrap puts the first item of the list at from at to; an empty list
// leaves to absent. A value that is no list moves as it is.
type unwrap struct{ from, to path }

func (r unwrap) apply(d doc) {
	v := d.lookup(r.from)
	if v == nil {
		return
	}
	list := gjson.Parse(v.text())
	switch first := list.Get("0"); {
	case !list.IsArray():
		d.relocate(r.from, r.to, v)
	case first.Exists():
		d.relocate(r.from, r.to, d.a.node(first.Raw))
	default:
		d.remove(r.from)
	}
}

func (r unwrap) inverse() rule  { return wrap{from: r.to, to: r.from} }
func (r unwrap) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r unwrap) String() string { return flow("unwrap", "from", r.from.text, "to", r.to.text) }

// split cuts the string at from into a list of strings at to. The empty
// string is the empty list, so that split and join undo each other for
// every string. A value that is no string moves as it is.
type split struct {
	from, to path
	sep      string
}

func (r split) apply(d doc) {
	v := d.lookup(r.from)
	if v == nil {
		return
	}
	s := gjson.Parse(v.text())
	if s.Type != gjson.String {
		d.relocate(r.from, r.to, v)
		return
	}
	list := []byte{'['}
	if s.Str != "" {
		for i, part := range strings.Split(s.Str, r.sep) {
			if i > 0 {
				list = append(list, ',')
			}
			list = gjson.AppendJSONString(list, part)
		}
	}
	d.relocate(r.from, r.to, d.a.node(string(append(list, ']'))))
}

func (r split) inverse() rule { return join{from: r.to, to: r.from, sep: r.sep} }
func (r split) uses() []use   { return []use{reads("from", r.from), writes("to", r.to)} }
func (r split) String() string {
	return flow("split", "from", r.from.text, "to", r.to.text, "separator", strconv.Quote(r.sep))
}

// join writes the items of the list at from, separated by sep, as one
// string at to; items that are not strings are written as JSON. A value
// that is no list moves as it is.
type join struct {
	from, to path
	sep      string
}

func (r join) apply(d doc) {
	v := d.lookup(r.from)
	if v == nil {
		return
	}
	list := gjson.Parse(v.text())
	if !list.IsArray() {
		d.relocate(r.from, r.to, v)
		return
	}
	var b strings.Builder
	i := 0
	list.ForEach(func(_, item gjson.Result) bool {
		if i > 0 {
			b.WriteString(r.sep)
		}
		if item.Type == gjson.String {
			b.WriteString(item.Str)
		} else {
			b.WriteString(item.Raw)
		}
		i++
		return true
	})
	d.relocate(r.from, r.to, d.a.node(jsonString(b.String())))
}

func (r join) inverse() rule { return split{from: r.to, to: r.from, sep: r.sep} }
func (r join) uses() []use   { return []use{reads("from", r.from), writes("to", r.to)} }
func (r join) String() string {
	return flow("join", "from", r.from.text, "to", r.to.text, "separator", strconv.Quote(r.sep))
}
