package apply

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// The write pipeline carries an object's metadata.managedFields beside the
// object: cut off the stored object when a write loads it, joined to the
// object the store writes. These work on the bytes, so that a write copies
// the object once for each, and never runs sjson's search and rewrite.

const managedFieldsPath = "metadata.managedFields"

// ManagedFieldsOf is obj's metadata.managedFields, nil when it has none: a
// slice of obj's bytes, not a copy (a write replaces a body and never
// changes one in place), capped so that an append copies.
func ManagedFieldsOf(obj []byte) []byte {
	v := gjson.Get(jsonscan.View(obj), managedFieldsPath)
	switch {
	case !v.Exists():
		return nil
	case v.Index > 0:
		return obj[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// WithManagedFields is obj with mf as its metadata.managedFields, or
// without them when mf is nil. The list is written where it lies, or at
// the end of metadata; obj itself when it is there already.
func WithManagedFields(obj, mf []byte) ([]byte, error) {
	meta := gjson.Get(jsonscan.View(obj), "metadata")
	var cur gjson.Result
	if meta.IsObject() {
		cur = meta.Get("managedFields")
	}
	switch {
	case mf == nil && !cur.Exists():
		return obj, nil
	case mf != nil && cur.Exists() && cur.Index > 0:
		if cur.Raw == string(mf) {
			return obj, nil
		}
		return splice(obj, cur.Index, len(cur.Raw), mf), nil
	case mf != nil && !cur.Exists() && meta.Index > 0:
		end := meta.Index + len(meta.Raw) - 1 // its closing brace
		const key = `"managedFields":`
		out := make([]byte, 0, len(obj)+1+len(key)+len(mf))
		out = append(out, obj[:end]...)
		if strings.TrimSpace(meta.Raw[1:len(meta.Raw)-1]) != "" {
			out = append(out, ',')
		}
		out = append(append(out, key...), mf...)
		return append(out, obj[end:]...), nil
	}
	return setList(obj, mf)
}

// CutManagedFields splits metadata.managedFields off obj: obj without
// them (a copy; obj itself is left as it is), and the list, a slice of
// obj's bytes (nil: none).
func CutManagedFields(obj []byte) ([]byte, []byte, error) {
	v := gjson.Get(jsonscan.View(obj), managedFieldsPath)
	if !v.Exists() {
		return obj, nil, nil
	}
	to := v.Index + len(v.Raw)
	start, end, ok := memberBounds(obj, `"managedFields"`, v.Index, to)
	if !ok {
		rest, err := setList(obj, nil)
		return rest, []byte(v.Raw), err
	}
	return splice(obj, start, end-start, nil), obj[v.Index:to:to], nil
}

// memberBounds widens the value at obj[from:to] to its member: the key
// (whose JSON text must be key, as written) and one comma beside it, the
// one before if there is one. false when the bytes are not laid out so.
func memberBounds(obj []byte, key string, from, to int) (int, int, bool) {
	i := skipSpaceBack(obj, from)
	if from <= 0 || i <= 0 || obj[i-1] != ':' {
		return 0, 0, false
	}
	i = skipSpaceBack(obj, i-1)
	if i < len(key) || string(obj[i-len(key):i]) != key {
		return 0, 0, false
	}
	start, end := i-len(key), to
	if j := skipSpaceBack(obj, start); j > 0 && obj[j-1] == ',' {
		return j - 1, end, true
	}
	if j := jsonscan.SkipSpace(jsonscan.View(obj), end); j < len(obj) && obj[j] == ',' {
		return start, j + 1, true
	}
	return start, end, true
}

// skipSpaceBack returns the index just past the last byte before i that
// is not JSON whitespace.
func skipSpaceBack(b []byte, i int) int {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\n' || b[i-1] == '\r' || b[i-1] == '\t') {
		i--
	}
	return i
}

// splice is obj with n bytes at i replaced by with, in a new slice.
func splice(obj []byte, i, n int, with []byte) []byte {
	out := make([]byte, 0, len(obj)-n+len(with))
	out = append(out, obj[:i]...)
	out = append(out, with...)
	return append(out, obj[i+n:]...)
}

// setList is WithManagedFields through sjson, for the layouts the byte
// splices leave to it (no metadata, a key written with escapes).
func setList(obj, mf []byte) ([]byte, error) {
	var out []byte
	var err error
	if mf == nil {
		out, err = sjson.DeleteBytes(obj, managedFieldsPath)
	} else {
		out, err = sjson.SetRawBytes(obj, managedFieldsPath, mf)
	}
	if err != nil {
		return nil, fmt.Errorf("set managedFields: %w", err)
	}
	return out, nil
}
