package convert

// move puts the value at from at to, and removes it from from.
type move struct{ from, to path }

func (r move) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	return relocate(doc, r.from, r.to, []byte(v.Raw))
}

func (r move) inverse() rule  { return move{from: r.to, to: r.from} }
func (r move) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r move) String() string { return flow("move", "from", r.from.text, "to", r.to.text) }

// copy puts the value at from at to too. Its inverse deletes the copy.
type copyRule struct{ from, to path }

func (r copyRule) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.from)
	if !v.Exists() {
		return doc, nil
	}
	return setRaw(doc, r.to, []byte(v.Raw))
}

func (r copyRule) inverse() rule  { return deleteRule{path: r.to} }
func (r copyRule) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r copyRule) String() string { return flow("copy", "from", r.from.text, "to", r.to.text) }
