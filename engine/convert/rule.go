package convert

import "strings"

// rule is one rule of a rules file, ready to apply to a document.
type rule interface {
	// apply applies the rule to a document.
	apply(d doc)
	// inverse returns the rule that undoes this one, for the derived fromHub.
	inverse() rule
	// uses lists the paths the rule reads and writes, for Bind's checks and
	// for naming the rules that touch a field.
	uses() []use
	// String renders the rule as a rules file writes it.
	String() string
}

// binder is a rule that needs to know the types of the schemas it converts
// between (coerce: the type to go back to). bind returns the rule with
// that knowledge, or the reason it cannot be had.
type binder interface {
	bind(b *binding) (rule, string)
}

// use is one path a rule reads (in the version it converts from) or writes
// (in the version it converts to); in-place rules do both.
type use struct {
	field       string // the rule's field that holds the path: "from", "to", "path"
	p           path
	read, write bool
}

func reads(field string, p path) use  { return use{field: field, p: p, read: true} }
func writes(field string, p path) use { return use{field: field, p: p, write: true} }
func inPlace(field string, p path) use {
	return use{field: field, p: p, read: true, write: true}
}

// step is a rule and where it stands in its file, for messages:
// "versions.v1.toHub[2]", or "versions.v1.fromHub (inverse of toHub[2])".
type step struct {
	rule  rule
	where string
}

// run applies steps in order.
func run(steps []step, d doc) {
	for _, s := range steps {
		s.rule.apply(d)
	}
}

// invert derives the steps that undo steps: each inverted, in reverse order.
func invert(steps []step, where string) []step {
	out := make([]step, 0, len(steps))
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		inv := s.rule.inverse()
		if fe, ok := s.rule.(forEach); ok {
			inv = fe.inverseIn(where) // its nested rules named after where they go
		}
		_, index, _ := strings.Cut(s.where, "toHub")
		out = append(out, step{rule: inv, where: where + " (inverse of toHub" + index + ")"})
	}
	return out
}

// flow renders a rule's fields the way YAML's flow style writes them.
func flow(name string, kv ...string) string {
	var b strings.Builder
	b.WriteString(name + " {")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(kv[i] + ": " + kv[i+1])
	}
	b.WriteString("}")
	return b.String()
}
