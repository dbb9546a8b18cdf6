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
}

func (r toMeta) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	text := v.Str
	if v.Type != gjson.String {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(v.Raw)); err != nil {
			return nil, err
		}
		text = b.String()
	}
	return relocate(doc, r.from, metaPath(r.kind, r.key), gjson.AppendJSONString(nil, text))
}

func (r toMeta) inverse() rule {
	return fromMeta{kind: r.kind, key: r.key, to: r.from, typ: r.typ}
}

func (r toMeta) uses() []use {
	return []use{reads("from", r.from), writes("key", metaPath(r.kind, r.key))}
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
	to       path
}

func (r fromMeta) apply(doc []byte) ([]byte, error) {
	at := metaPath(r.kind, r.key)
	v := get(doc, at)
	if !v.Exists() {
		return doc, nil
	}
	raw := []byte(v.Raw)
	if v.Type == gjson.String {
		raw = gjson.AppendJSONString(nil, v.Str)
		if r.typ != "" && r.typ != typeString && gjson.Valid(v.Str) {
			raw = []byte(v.Str)
		}
	}
	return relocate(doc, at, r.to, raw)
}

func (r fromMeta) inverse() rule {
	return toMeta{from: r.to, kind: r.kind, key: r.key, typ: r.typ}
}

func (r fromMeta) uses() []use {
	return []use{reads("key", metaPath(r.kind, r.key)), writes("to", r.to)}
}

func (r fromMeta) String() string {
	return flow(ruleName("from", r.kind), "key", r.key, "to", r.to.text)
}

func (r fromMeta) bind(b *binding) (rule, string) {
	r.typ, _ = b.dstType(r.to)
	return r, ""
}

// ruleName names the rule for a direction and kind: "toAnnotation", "fromLabel".
func ruleName(direction, kind string) string {
	if kind == annotations {
		return direction + "Annotation"
	}
	return direction + "Label"
}
