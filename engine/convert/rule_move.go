package convert

// move puts the value at from at to, and removes it from from.
type move struct{ from, to path }

func (r move) apply(d doc) {
	if v := d.lookup(r.from); v != nil {
		d.relocate(r.from, r.to, v)
	}
}

func (r move) inverse() rule  { return move{from: r.to, to: r.from} }
func (r move) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r move) String() string { return flow("move", "from", r.from.text, "to", r.to.text) }

// copyRule puts the value at from at to too. Its inverse deletes the copy.
type copyRule struct{ from, to path }

func (r copyRule) apply(d doc) {
	if v := d.lookup(r.from); v != nil {
		d.putRaw(r.to, v.text()) // a copy of its own: later rules may change either
	}
}

func (r copyRule) inverse() rule  { return deleteRule{path: r.to} }
func (r copyRule) uses() []use    { return []use{reads("from", r.from), writes("to", r.to)} }
func (r copyRule) String() string { return flow("copy", "from", r.from.text, "to", r.to.text) }
