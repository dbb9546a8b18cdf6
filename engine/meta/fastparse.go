package meta

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// parseFast decodes metadata of the usual shape straight from the parsed
// bytes, as encoding/json decodes it into ObjectMeta; ok is false for
// anything else, which Parse leaves to encoding/json (it also words the
// errors). Why: encoding/json's reflection was a tenth of the pipeline's
// CPU on every write, and an update decodes two metadata. The usual
// shape: each member once, named exactly as ObjectMeta's JSON tags
// (encoding/json also takes other cases and drops unknown names), strings
// without escapes and in valid UTF-8 (encoding/json replaces what is not),
// no nulls, integers as int64 literals. TestParseFastAgrees holds it to
// encoding/json.
func parseFast(raw gjson.Result) (*metav1.ObjectMeta, bool) {
	// One copy for every string decoded: raw may share the bytes of a
	// body that is written to later.
	raw = gjson.Parse(strings.Clone(raw.Raw))
	m := &metav1.ObjectMeta{}
	var seen uint32
	ok := true
	raw.ForEach(func(k, v gjson.Result) bool {
		bit, known := fieldBits[k.Raw]
		if ok = known && seen&bit == 0; ok {
			seen |= bit
			ok = setField(m, k.Str, v)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return m, true
}

// fieldBits are the members parseFast decodes, by their JSON key as
// written (quoted), each with a bit to find one given twice.
var fieldBits = func() map[string]uint32 {
	names := []string{"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
		"ownerReferences", "finalizers", "managedFields"}
	bits := make(map[string]uint32, len(names))
	for i, n := range names {
		bits[strconv.Quote(n)] = 1 << i
	}
	return bits
}()

// setField decodes one member of metadata into m; false: not the usual shape.
func setField(m *metav1.ObjectMeta, name string, v gjson.Result) bool {
	ok := true
	switch name {
	case "name":
		m.Name, ok = plainString(v)
	case "generateName":
		m.GenerateName, ok = plainString(v)
	case "namespace":
		m.Namespace, ok = plainString(v)
	case "selfLink":
		m.SelfLink, ok = plainString(v)
	case "uid":
		var s string
		s, ok = plainString(v)
		m.UID = types.UID(s)
	case "resourceVersion":
		m.ResourceVersion, ok = plainString(v)
	case "generation":
		m.Generation, ok = int64Of(v)
	case "creationTimestamp":
		ok = setTime(&m.CreationTimestamp, v)
	case "deletionTimestamp":
		m.DeletionTimestamp = &metav1.Time{}
		ok = setTime(m.DeletionTimestamp, v)
	case "deletionGracePeriodSeconds":
		var n int64
		n, ok = int64Of(v)
		m.DeletionGracePeriodSeconds = &n
	case "labels":
		m.Labels, ok = stringMap(v)
	case "annotations":
		m.Annotations, ok = stringMap(v)
	case "ownerReferences":
		m.OwnerReferences, ok = ownerReferences(v)
	case "finalizers":
		m.Finalizers, ok = stringList(v)
	}
	return ok // managedFields: skipped, as Parse skips them
}

// setTime decodes a plain string (see plainString) as metav1.Time's
// UnmarshalJSON does, without its encoding/json pass over the string
// (3,000 instructions per timestamp, callgrind).
func setTime(t *metav1.Time, v gjson.Result) bool {
	s, ok := plainString(v)
	if !ok {
		return false
	}
	parsed, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return false
	}
	t.Time = parsed.Local()
	return true
}

// plainString is a JSON string without escapes, in valid UTF-8.
func plainString(v gjson.Result) (string, bool) {
	if v.Type != gjson.String || strings.IndexByte(v.Raw, '\\') >= 0 || !utf8.ValidString(v.Str) {
		return "", false
	}
	return v.Str, true
}

// int64Of is a number written as an int64 literal, as encoding/json
// decodes into an int64.
func int64Of(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	return n, err == nil
}

// stringMap is an object of plain strings with plain keys; like
// encoding/json, {} is an empty map, not nil.
func stringMap(v gjson.Result) (map[string]string, bool) {
	if !v.IsObject() {
		return nil, false
	}
	out, ok := map[string]string{}, true
	v.ForEach(func(k, x gjson.Result) bool {
		key, kok := plainString(k)
		val, vok := plainString(x)
		_, dup := out[key]
		if ok = kok && vok && !dup; ok {
			out[key] = val
		}
		return ok
	})
	return out, ok
}

// stringList is an array of plain strings; [] is an empty slice, not nil.
func stringList(v gjson.Result) ([]string, bool) {
	if !v.IsArray() {
		return nil, false
	}
	out, ok := []string{}, true
	v.ForEach(func(_, x gjson.Result) bool {
		var s string
		if s, ok = plainString(x); ok {
			out = append(out, s)
		}
		return ok
	})
	return out, ok
}

// ownerReferences is an array of owner references of the usual shape.
func ownerReferences(v gjson.Result) ([]metav1.OwnerReference, bool) {
	if !v.IsArray() {
		return nil, false
	}
	out, ok := []metav1.OwnerReference{}, true
	v.ForEach(func(_, x gjson.Result) bool {
		var ref metav1.OwnerReference
		if ref, ok = ownerReference(x); ok {
			out = append(out, ref)
		}
		return ok
	})
	return out, ok
}

// ownerReference is one owner reference: each member once, named exactly.
func ownerReference(v gjson.Result) (metav1.OwnerReference, bool) {
	var ref metav1.OwnerReference
	if !v.IsObject() {
		return ref, false
	}
	seen, ok := map[string]bool{}, true
	v.ForEach(func(k, x gjson.Result) bool {
		if seen[k.Raw] {
			ok = false
			return false
		}
		seen[k.Raw] = true
		var s string
		switch k.Raw {
		case `"apiVersion"`:
			ref.APIVersion, ok = plainString(x)
		case `"kind"`:
			ref.Kind, ok = plainString(x)
		case `"name"`:
			ref.Name, ok = plainString(x)
		case `"uid"`:
			s, ok = plainString(x)
			ref.UID = types.UID(s)
		case `"controller"`:
			ref.Controller, ok = boolOf(x)
		case `"blockOwnerDeletion"`:
			ref.BlockOwnerDeletion, ok = boolOf(x)
		default:
			ok = false
		}
		return ok
	})
	return ref, ok
}

// boolOf is a JSON true or false, as encoding/json decodes into a *bool.
func boolOf(v gjson.Result) (*bool, bool) {
	if v.Type != gjson.True && v.Type != gjson.False {
		return nil, false
	}
	b := v.Bool()
	return &b, true
}
