package schema

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// DropDuplicates removes from obj every object member whose key comes again
// later in the same object: the last one wins, as when encoding/json or
// PostgreSQL's jsonb read the document, and as kube-apiserver decodes a
// body. Why it matters: gjson answers the first of two keys, so without
// this a field could be checked as one value and stored as another. found
// lists the dropped fields in Kubernetes path form, in document order, for
// "duplicate field" warnings. obj must be valid JSON; when nothing is
// duplicated, obj itself is returned.
func DropDuplicates(obj []byte) (out []byte, found []string) {
	if !mayRepeatKeys(jsonscan.View(obj)) {
		return obj, nil
	}
	var pathBuf [16]pathElem
	d := deduper{path: pathBuf[:0]}
	if out := d.value(gjson.ParseBytes(obj)); out != nil {
		return out, d.found
	}
	return obj, nil
}

// deduper walks a document, dropping duplicated members.
type deduper struct {
	path  fieldPath
	found []string
}

// value returns v without duplicated members, or nil when it has none.
func (d *deduper) value(v gjson.Result) []byte {
	if !v.IsObject() && !v.IsArray() {
		return nil
	}
	isObject := v.IsObject()
	var keyBuf [16]string
	keys := keyBuf[:0]
	if isObject {
		v.ForEach(func(k, _ gjson.Result) bool {
			keys = append(keys, k.Str)
			return true
		})
	}
	var changes []change
	i := 0
	v.ForEach(func(k, x gjson.Result) bool {
		if isObject {
			d.path = append(d.path, pathElem{key: k.Str, index: -1})
		} else {
			d.path = append(d.path, pathElem{index: i})
		}
		if isObject && repeatedLater(keys, i) {
			d.found = append(d.found, d.path.String())
			changes = append(changes, change{index: i, drop: true})
		} else if raw := d.value(x); raw != nil {
			changes = append(changes, change{index: i, raw: raw})
		}
		d.path = d.path[:len(d.path)-1]
		i++
		return true
	})
	if changes == nil {
		return nil
	}
	return rebuild(v, changes, nil)
}

// repeatedLater reports whether keys[i] comes again after i. Objects have
// few keys, so a scan beats building a set; one with thousands of keys
// (a large map of labels or annotations) costs a few milliseconds.
func repeatedLater(keys []string, i int) bool {
	for _, k := range keys[i+1:] {
		if k == keys[i] {
			return true
		}
	}
	return false
}

// maxScannedKeys is the most members of one object mayRepeatKeys compares
// pairwise; a larger object (a big map of labels) is DropDuplicates' to walk.
const maxScannedKeys = 64

// mayRepeatKeys reports whether some object in doc, valid JSON, may have a
// key twice; false is certain. One pass over the bytes, comparing each key
// as written with the keys before it in its object. A key with an escape
// ("\u0061" is "a") or an object with more than maxScannedKeys members
// answers true. Why: nearly no body has a duplicate, and the walk that
// finds them re-parses every nested value once per level with gjson, a
// tenth of a create's CPU in the pipeline. TestMayRepeatKeysAgrees holds
// it to that walk.
func mayRepeatKeys(doc string) bool {
	var keys []string // the keys of the open objects, innermost last
	var starts []int  // per open object or list: where its keys begin in keys; -1 for a list
	expectKey := false
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '{':
			starts, expectKey = append(starts, len(keys)), true
		case '[':
			starts, expectKey = append(starts, -1), false
		case '}', ']':
			if len(starts) == 0 {
				return true // not JSON: the walk decides
			}
			if start := starts[len(starts)-1]; start >= 0 {
				keys = keys[:start]
			}
			starts = starts[:len(starts)-1]
		case ',':
			expectKey = len(starts) > 0 && starts[len(starts)-1] >= 0
		case '"':
			end := jsonscan.SkipString(doc, i)
			if end-1 <= i {
				return true // an unterminated string: not JSON
			}
			if expectKey && len(starts) > 0 {
				key, start := doc[i+1:end-1], starts[len(starts)-1]
				if strings.IndexByte(key, '\\') >= 0 || len(keys)-start >= maxScannedKeys || slices.Contains(keys[start:], key) {
					return true
				}
				keys, expectKey = append(keys, key), false
			}
			i = end - 1
		}
	}
	return false
}
