package apply

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/internal/jsonscan"
)

// fastCreate answers Update for a create without decoding the object,
// when the result is plain: a version whose schema tracks every list as
// atomic and every map granularly (no list-type set or map, no atomic
// map, no embedded resource), an object with no null, no managedFields,
// no finalizers, ownerReferences or last-applied annotation. Then the
// field set kube-apiserver's FieldManager records for a create is every
// node of the object but the ones it strips (apiVersion, kind, the
// server's metadata) and the reset ones (status, with a status
// subresource), which a walk of the JSON renders directly.
// TestFastCreateMatchesFieldManager holds it to the FieldManager's answer.
func (k *Kind) fastCreate(version, apiVersion string, obj []byte, manager string, now time.Time) ([]byte, bool) {
	v, ok := k.versions[version]
	if !ok || !v.plain {
		return nil, false
	}
	var fields bytes.Buffer
	fields.Grow(len(obj))
	fields.WriteByte('{')
	n := 0
	var buf [16]member
	for _, m := range sortedMembers(gjson.Parse(jsonscan.View(obj)), buf[:0]) { // written out before it returns
		switch {
		case m.key == "apiVersion" || m.key == "kind" || m.key == "status" && v.Status:
			continue
		case m.key == "metadata":
			if !plainMetadata(m.value) {
				return nil, false
			}
		}
		if !writeMember(&fields, &n, m.key, m.value, m.key == "metadata") {
			return nil, false
		}
	}
	fields.WriteByte('}')
	if n == 0 {
		return nil, false // nothing to record: kube records no entry
	}
	var out bytes.Buffer
	out.WriteString(`[{"apiVersion":`)
	out.Write(quote(apiVersion))
	out.WriteString(`,"fieldsType":"FieldsV1","fieldsV1":`)
	out.Write(fields.Bytes())
	out.WriteString(`,"manager":`)
	out.Write(quote(manager))
	out.WriteString(`,"operation":"Update","time":`)
	out.Write(quote(now.UTC().Format(time.RFC3339)))
	out.WriteString(`}]`)
	return out.Bytes(), true
}

// strippedMeta are the metadata fields kube-apiserver's FieldManager
// never records; plainMeta those a plain create may carry besides.
var (
	strippedMeta = []string{"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "resourceVersion"}
	plainMeta    = []string{"generateName", "labels", "annotations"}
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// plainMetadata reports whether metadata holds only what a plain create
// records the simple way.
func plainMetadata(m gjson.Result) bool {
	plain := m.IsObject()
	m.ForEach(func(k, _ gjson.Result) bool {
		plain = slices.Contains(strippedMeta, k.Str) || slices.Contains(plainMeta, k.Str)
		return plain
	})
	return plain && !m.Get("annotations."+gjson.Escape(lastApplied)).Exists()
}

// writeMember writes "f:key": the node's field set into buf, the n-th
// member. Under metadata (meta), the stripped fields are left out and the
// metadata node itself is not recorded. It reports false for what a
// plain create cannot hold (a null). It writes in place, and takes back
// what a node without members wrote.
func writeMember(buf *bytes.Buffer, n *int, key string, val gjson.Result, meta bool) bool {
	if val.Type == gjson.Null {
		return false
	}
	start := buf.Len()
	if *n > 0 {
		buf.WriteByte(',')
	}
	buf.Write(quote("f:" + key))
	open := buf.Len()
	if meta {
		buf.WriteString(`:{`)
	} else {
		buf.WriteString(`:{".":{},`)
	}
	m := 0
	if val.IsObject() {
		var mbuf [16]member
		for _, c := range sortedMembers(val, mbuf[:0]) {
			if meta && slices.Contains(strippedMeta, c.key) {
				continue
			}
			if !writeMember(buf, &m, c.key, c.value, false) {
				return false
			}
		}
	}
	switch {
	case m == 0 && meta:
		buf.Truncate(start) // only stripped fields: nothing recorded
		return true
	case m == 0:
		buf.Truncate(open)
		buf.WriteString(`:{}`)
	default:
		buf.WriteByte('}')
	}
	*n++
	return true
}

// sortedMembers are an object's members in byte order of their names,
// as the field set is serialized, listed into buf.
func sortedMembers(obj gjson.Result, buf []member) []member {
	ms := members(obj, buf)
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	return ms
}

// quote renders s as a JSON string, as encoding/json writes it.
func quote(s string) []byte { return jsonscan.AppendQuoted(nil, s) }

// plainSchema reports whether a version's schema (JSON) tracks every list
// as atomic and every map granularly.
func plainSchema(schema []byte) bool {
	plain := len(schema) > 0 // without a schema, the FieldManager's own rules apply
	var walk func(gjson.Result)
	walk = func(s gjson.Result) {
		if !plain || !s.IsObject() {
			return
		}
		if lt := s.Get("x-kubernetes-list-type").Str; lt == "set" || lt == "map" ||
			s.Get("x-kubernetes-map-type").Str == "atomic" || s.Get("x-kubernetes-embedded-resource").Bool() {
			plain = false
			return
		}
		s.ForEach(func(_, v gjson.Result) bool {
			walk(v)
			if v.IsArray() {
				for _, item := range v.Array() {
					walk(item)
				}
			}
			return plain
		})
	}
	walk(gjson.ParseBytes(schema))
	return plain
}
