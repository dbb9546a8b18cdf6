package convert

// set writes a constant the target needs. Its inverse deletes it.
type set struct {
	path  path
	value []byte // JSON
}

func (r set) apply(doc []byte) ([]byte, error) { return setRaw(doc, r.path, r.value) }
func (r set) inverse() rule                    { return deleteRule{path: r.path} }
func (r set) uses() []use                      { return []use{writes("path", r.path)} }
func (r set) String() string {
	return flow("set", "path", r.path.text, "value", string(r.value))
}

// defaultRule writes a value where there is none. Its inverse deletes the
// value when it still equals the default.
type defaultRule struct {
	path  path
	value []byte // JSON
}

func (r defaultRule) apply(doc []byte) ([]byte, error) {
	if get(doc, r.path).Exists() {
		return doc, nil
	}
	return setRaw(doc, r.path, r.value)
}

func (r defaultRule) inverse() rule { return deleteIfEqual(r) }
func (r defaultRule) uses() []use   { return []use{writes("path", r.path)} }
func (r defaultRule) String() string {
	return flow("default", "path", r.path.text, "value", string(r.value))
}

// deleteIfEqual is the inverse of default: it removes the value at path
// when it equals value.
type deleteIfEqual struct {
	path  path
	value []byte // JSON
}

func (r deleteIfEqual) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.path)
	if !v.Exists() || !equalRaw(v, r.value) {
		return doc, nil
	}
	return remove(doc, r.path)
}

func (r deleteIfEqual) inverse() rule { return defaultRule(r) }
func (r deleteIfEqual) uses() []use   { return []use{reads("path", r.path)} }
func (r deleteIfEqual) String() string {
	return flow("deleteIfEqual", "path", r.path.text, "value", string(r.value))
}

// deleteRule removes a field the target does not have. Nothing in the
// target can bring it back: its inverse does nothing, and the field is
// kept, when it must be, by the remainder (see Remainder).
type deleteRule struct{ path path }

func (r deleteRule) apply(doc []byte) ([]byte, error) { return remove(doc, r.path) }
func (r deleteRule) inverse() rule                    { return restore(r) }
func (r deleteRule) uses() []use                      { return []use{reads("path", r.path)} }
func (r deleteRule) String() string                   { return flow("delete", "path", r.path.text) }

// restore is the inverse of delete: the deleted value is not in the
// object, so there is nothing to do; Restore puts it back from a remainder.
type restore struct{ path path }

func (r restore) apply(doc []byte) ([]byte, error) { return doc, nil }
func (r restore) inverse() rule                    { return deleteRule(r) }
func (r restore) uses() []use                      { return []use{writes("path", r.path)} }
func (r restore) String() string                   { return flow("restore", "path", r.path.text) }
