package convert

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"
)

// Where toAnnotation and toLabel put values.
const (
	annotations = "annotations"
	labels      = "labels"
)

// metaPath is the path of one annotation or label.
func metaPath(kind, key string) path { return newPath([]string{"metadata", kind, key}) }

// toMeta moves the value at from into an annotation or label (kind) named
// key: a string as it is, anything else as its JSON text. typ is the type
// from has in the source schema ("" when unknown), which the way back
// needs to read the text back.
type toMeta struct {
	from     path
	kind     string
	key, typ string
	at       path // metaPath(kind, key)
}

func (r toMeta) apply(d doc) {
	v := d.value(r.from)
	if !v.Exists() {
		return
	}
	text := v.Str
	if v.Type != gjson.String {
		text = compact(v.Raw)
	}
	d.relocate(r.from, r.at, d.a.node(jsonString(text)))
}

func (r toMeta) inverse() rule {
	return fromMeta{kind: r.kind, key: r.key, at: r.at, to: r.from, typ: r.typ}
}

func (r toMeta) uses() []use {
	return []use{reads("from", r.from), writes("key", r.at)}
}

func (r toMeta) String() string {
	return flow(ruleName("to", r.kind), "from", r.from.text, "key", r.key)
}

func (r toMeta) bind(b *binding) (rule, string) {
	r.typ, _ = b.srcType(r.from)
	return r, ""
}

// fromMeta moves an annotation or label back to the field at to. typ is
// the field's type: the text is JSON unless the field is a string or of
// unknown type.
type fromMeta struct {
	kind     string
	key, typ string
	at       path // metaPath(kind, key)
	to       path
}

func (r fromMeta) apply(d doc) {
	v := d.value(r.at)
	if !v.Exists() {
		return
	}
	value := v.Raw
	if v.Type == gjson.String && r.typ != "" && r.typ != typeString && gjson.Valid(v.Str) {
		value = v.Str
	}
	d.relocate(r.at, r.to, d.a.node(value))
}

func (r fromMeta) inverse() rule {
	return toMeta{from: r.to, kind: r.kind, key: r.key, at: r.at, typ: r.typ}
}

func (r fromMeta) uses() []use {
	return []use{reads("key", r.at), writes("to", r.to)}
}

func (r fromMeta) String() string {
	return flow(ruleName("from", r.kind), "key", r.key, "to", r.to.text)
}

func (r fromMeta) bind(b *binding) (rule, string) {
	r.typ, _ = b.dstType(r.to)
	return r, ""
}

// compact removes the spaces of a JSON value, for an annotation.
func compact(raw string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return raw // not JSON: the object was not checked at the edge
	}
	return b.String()
}

// ruleName names the rule for a direction and kind: "toAnnotation", "fromLabel".
func ruleName(direction, kind string) string {
	if kind == annotations {
		return direction + "Annotation"
	}
	return direction + "Label"
}
