package apply

import (
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
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
	// One buffer, written in order: the entry around the field set, the
	// field set in place.
	out := make([]byte, 0, 192+len(apiVersion)+len(manager)+len(obj)/2)
	out = append(out, `[{"apiVersion":`...)
	out = jsonscan.AppendQuoted(out, apiVersion)
	out = append(out, `,"fieldsType":"FieldsV1","fieldsV1":{`...)
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
		if out, ok = writeMember(out, &n, m.key, m.value, m.key == "metadata"); !ok {
			return nil, false
		}
	}
	if n == 0 {
		return nil, false // nothing to record: kube records no entry
	}
	out = append(out, `},"manager":`...)
	out = jsonscan.AppendQuoted(out, manager)
	out = append(out, `,"operation":"Update","time":"`...)
	out = now.UTC().AppendFormat(out, time.RFC3339)
	return append(out, `"}]`...), true
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
	m.ForEach(func(k, v gjson.Result) bool {
		plain = slices.Contains(strippedMeta, k.Str) || slices.Contains(plainMeta, k.Str)
		if plain && k.Str == "annotations" {
			v.ForEach(func(a, _ gjson.Result) bool {
				plain = a.Str != lastApplied
				return plain
			})
		}
		return plain
	})
	return plain
}

// writeMember appends "f:key": the field set of the node val to out, as
// the n-th member. Under metadata (meta), the stripped fields
// are left out and the metadata node itself is not recorded. It reports
// false for what a plain create cannot hold (a null). It writes in place,
// and takes back what a node without members wrote.
func writeMember(out []byte, n *int, key string, val gjson.Result, meta bool) ([]byte, bool) {
	if val.Type == gjson.Null {
		return out, false
	}
	start := len(out)
	if *n > 0 {
		out = append(out, ',')
	}
	out = appendField(out, key)
	open := len(out)
	if meta {
		out = append(out, `:{`...)
	} else {
		out = append(out, `:{".":{},`...)
	}
	m := 0
	if val.IsObject() {
		var mbuf [16]member
		for _, c := range sortedMembers(val, mbuf[:0]) {
			if meta && slices.Contains(strippedMeta, c.key) {
				continue
			}
			var ok bool
			if out, ok = writeMember(out, &m, c.key, c.value, false); !ok {
				return out, false
			}
		}
	}
	switch {
	case m == 0 && meta:
		return out[:start], true // only stripped fields: nothing recorded
	case m == 0:
		out = append(out[:open], `:{}`...)
	default:
		out = append(out, '}')
	}
	*n++
	return out, true
}

// appendField appends "f:name", quoted as encoding/json quotes it,
// without building the string: f:"name", whose first three bytes then
// become "f:.
func appendField(out []byte, name string) []byte {
	at := len(out)
	out = jsonscan.AppendQuoted(append(out, `f:`...), name)
	copy(out[at:], `"f:`)
	return out
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
