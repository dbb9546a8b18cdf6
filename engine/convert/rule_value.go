package convert

import "github.com/dynapi/dynapi/internal/json/jsoneq"

// set writes a constant the target needs. Its inverse deletes it.
type set struct {
	path  path
	value string // JSON
}

func (r set) apply(d doc)    { d.putRaw(r.path, r.value) }
func (r set) inverse() rule  { return deleteRule{path: r.path} }
func (r set) uses() []use    { return []use{writes("path", r.path)} }
func (r set) String() string { return flow("set", "path", r.path.text, "value", r.value) }

// defaultRule writes a value where there is none. Its inverse deletes the
// value when it still equals the default.
type defaultRule struct {
	path  path
	value string // JSON
}

func (r defaultRule) apply(d doc) {
	if d.lookup(r.path) == nil {
		d.putRaw(r.path, r.value)
	}
}

func (r defaultRule) inverse() rule { return deleteIfEqual(r) }
func (r defaultRule) uses() []use   { return []use{writes("path", r.path)} }
func (r defaultRule) String() string {
	return flow("default", "path", r.path.text, "value", r.value)
}

// deleteIfEqual is the inverse of default: it removes the value at path
// when it equals value.
type deleteIfEqual struct {
	path  path
	value string // JSON
}

func (r deleteIfEqual) apply(d doc) {
	if v := d.value(r.path); v.Exists() && jsoneq.EqualText(v.Raw, r.value) {
		d.remove(r.path)
	}
}

func (r deleteIfEqual) inverse() rule { return defaultRule(r) }
func (r deleteIfEqual) uses() []use   { return []use{reads("path", r.path)} }
func (r deleteIfEqual) String() string {
	return flow("deleteIfEqual", "path", r.path.text, "value", r.value)
}

// deleteRule removes a field the target does not have. Nothing in the
// target can bring it back: its inverse does nothing, and the field is
// kept, when it must be, by the remainder (see Remainder).
type deleteRule struct{ path path }

func (r deleteRule) apply(d doc)    { d.remove(r.path) }
func (r deleteRule) inverse() rule  { return restore(r) }
func (r deleteRule) uses() []use    { return []use{reads("path", r.path)} }
func (r deleteRule) String() string { return flow("delete", "path", r.path.text) }

// restore is the inverse of delete: the deleted value is not in the
// object, so there is nothing to do; Restore puts it back from a remainder.
type restore struct{ path path }

func (r restore) apply(doc)      {}
func (r restore) inverse() rule  { return deleteRule(r) }
func (r restore) uses() []use    { return []use{writes("path", r.path)} }
func (r restore) String() string { return flow("restore", "path", r.path.text) }
