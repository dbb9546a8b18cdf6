package resource

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/internal/jsonscan"
)

const managedFieldsPath = "metadata.managedFields"

// sentManagedFields is metadata.managedFields of a body, nil when it has
// none: a slice of obj's bytes, not a copy (every write replaces a body,
// none changes one in place), capped so that an append copies.
func sentManagedFields(obj []byte) []byte {
	v := lookup(obj, managedFieldsPath)
	switch {
	case !v.Exists():
		return nil
	case v.Index > 0:
		return obj[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// lookup is gjson.GetBytes without its copy of the value: the result's
// text shares obj's bytes, which stay as they are (a write replaces a body
// and never changes one in place). Index is the value's offset in obj.
func lookup(obj []byte, path string) gjson.Result {
	return gjson.Get(jsonscan.View(obj), path)
}

// managedFields decides the metadata.managedFields a write stores (in
// w.managed), as kube-apiserver's FieldManager does on every create and
// update (patch, /status, /finalize): an Update entry for the fields this
// write changed, or the Apply entry an apply computed. A subresource other
// than status keeps what is recorded.
//
// The list travels beside the object, not inside it: the stored one was
// cut off the object it was read with (w.oldManaged), a body's own was
// read once (w.sentFields) and metadata is written without it, and the
// store joins w.managed to the object it writes. So no stage but this one
// reads, compares or copies those bytes (often a quarter of an object).
// The shortcut's walk of the stored object and the update also tells the
// generation stage what changed (w.diff), which then compares nothing.
func managedFields(_ *Service, w *Write) error {
	k := w.Target.Resource.Fields
	switch {
	case w.applied:
		return nil
	case k == nil, w.Target.Subresource != "" && w.Target.Subresource != "status":
		w.managed = w.oldManaged
		return nil
	}
	version, sub, manager := w.Target.Version.Name, w.Target.Subresource, w.Options.FieldManager
	mf, ok, diff, err := k.Shortcut(version, sub, w.Old, w.oldManaged, w.Object, w.sentFields, manager)
	w.diff = diff
	switch {
	case err != nil:
		return err
	case ok:
		w.managed = mf
		return nil
	case w.unchangedForFields():
		w.managed = w.oldManaged
		return nil
	}
	w.managed, err = k.Merge(version, sub, w.Old, w.oldManaged, w.Object, w.sentFields, manager)
	return err
}

// unchangedForFields reports whether an update changes nothing that
// managedFields record: the same object but for server-owned metadata,
// and no managedFields sent. kube-apiserver's FieldManager would find the
// same managed set; this costs a byte comparison instead of a merge. It
// is asked only where the shortcut did not answer (whose walk finds an
// unchanged object already, when it has managedFields).
func (w *Write) unchangedForFields() bool {
	if w.Operation != UpdateOperation || w.sentFields != nil && w.Target.Subresource == "" {
		return false
	}
	return sameJSON(w.Object, w.Old, "metadata") && sameJSON(MetadataOf(w.Object), MetadataOf(w.Old),
		"resourceVersion", "generation")
}

// withManagedFields is obj with mf as its metadata.managedFields, or
// without them when mf is nil. The list is written where it lies, or at
// the end of metadata: a copy of the object, not sjson's search and
// rewrite; and no copy at all when it is there already.
func withManagedFields(obj, mf []byte) ([]byte, error) {
	meta := lookup(obj, "metadata")
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
	return setRaw(obj, managedFieldsPath, mf)
}

// cutManagedFields splits metadata.managedFields off obj: obj without
// them (a copy; obj itself is left as it is), and the list, a slice of
// obj's bytes (nil: none).
func cutManagedFields(obj []byte) ([]byte, []byte, error) {
	v := lookup(obj, managedFieldsPath)
	if !v.Exists() {
		return obj, nil, nil
	}
	to := v.Index + len(v.Raw)
	start, end, ok := memberBounds(obj, `"managedFields"`, v.Index, to)
	if !ok {
		rest, err := setRaw(obj, managedFieldsPath, nil)
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

// sameManaged reports whether two managedFields lists (nil: none) are
// the same JSON.
func sameManaged(a, b []byte) bool {
	return (a == nil) == (b == nil) && (a == nil || sameJSON(a, b))
}

// joinManagedFields writes w.managed into w.Object, as the store writes it.
func (w *Write) joinManagedFields() error {
	obj, err := withManagedFields(w.Object, w.managed)
	w.Object = obj
	return err
}

// splice is obj with n bytes at i replaced by with, in a new slice.
func splice(obj []byte, i, n int, with []byte) []byte {
	out := make([]byte, 0, len(obj)-n+len(with))
	out = append(out, obj[:i]...)
	out = append(out, with...)
	return append(out, obj[i+n:]...)
}

// setRaw sets field of obj to raw, or removes it when raw is nil.
func setRaw(obj []byte, field string, raw []byte) ([]byte, error) {
	var out []byte
	var err error
	if raw == nil {
		out, err = sjson.DeleteBytes(obj, field)
	} else {
		out, err = sjson.SetRawBytes(obj, field, raw)
	}
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", field, err)
	}
	return out, nil
}
