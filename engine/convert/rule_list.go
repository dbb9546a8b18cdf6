package convert

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// wrap turns the value at from into a one-item list at to.
type wrap struct{ from, to path }

func (r wrap) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	raw := make([]byte, 0, len(v.Raw)+2)
	raw = append(append(append(raw, '['), v.Raw...), ']')
	return relocate(doc, r.from, r.to, raw)
}

func (r wrap) inverse() rule  { return unwrap{from: r.to, to: r.from} }
func (r wrap) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r wrap) String() string { return flow("wrap", "from", r.from.text, "to", r.to.text) }

// unwrap puts the first item of the list at from at to; an empty list
// leaves to absent. A value that is no list moves as it is.
type unwrap struct{ from, to path }

func (r unwrap) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	if !v.IsArray() {
		return relocate(doc, r.from, r.to, []byte(v.Raw))
	}
	first := v.Get("0")
	if !first.Exists() {
		return remove(doc, r.from)
	}
	return relocate(doc, r.from, r.to, []byte(first.Raw))
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

func (r split) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	if v.Type != gjson.String {
		return relocate(doc, r.from, r.to, []byte(v.Raw))
	}
	raw := []byte{'['}
	if v.Str != "" {
		for i, part := range strings.Split(v.Str, r.sep) {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = gjson.AppendJSONString(raw, part)
		}
	}
	return relocate(doc, r.from, r.to, append(raw, ']'))
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

func (r join) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	if !v.IsArray() {
		return relocate(doc, r.from, r.to, []byte(v.Raw))
	}
	var b strings.Builder
	i := 0
	v.ForEach(func(_, item gjson.Result) bool {
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
	return relocate(doc, r.from, r.to, gjson.AppendJSONString(nil, b.String()))
}

func (r join) inverse() rule { return split{from: r.to, to: r.from, sep: r.sep} }
func (r join) uses() []use   { return []use{reads("from", r.from), writes("to", r.to)} }
func (r join) String() string {
	return flow("join", "from", r.from.text, "to", r.to.text, "separator", strconv.Quote(r.sep))
}
