// Package prove proves a kind's conversion rules against its schemas, as
// `dynapi check` runs it: objects generated from every version's schema
// (optional fields present and absent, lists and maps of 0, 1 and 3
// items, nested objects, every enum value) are converted through the hub
// and back, and every failure is named by file, rule and field:
//
//   - every field of a version reaches the hub, through a rule or by the
//     same path: the hub's schema prunes nothing;
//   - every converted object validates against its target's schema;
//   - for every pair of versions A and B, A → hub → B → hub → A gives back
//     the original, with what B cannot hold kept by convert.Remainder and
//     put back by convert.Restore, as storage does.
//
// An empty object counts as absent: rules remove the objects they empty.
package prove

import (
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
)

// Failure is one way a kind's conversions fail the proof.
type Failure struct {
	// File is the kind's rules file, a path in the conversions folder, or
	// its definition file when it has none (Conversion false).
	File       string
	Conversion bool
	// Rules are the rules that touch Field ("versions.v1.toHub[2]: move
	// {from: spec.a, to: spec.b}"); none when no rule does.
	Rules  []string
	Field  string // "spec.size.diameter"; "" for the object as a whole
	Reason string
}

// String renders "file: field: reason (rules: ...)".
func (f Failure) String() string {
	var b strings.Builder
	b.WriteString(f.File + ": ")
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Reason)
	if len(f.Rules) > 0 {
		b.WriteString(" (rules: " + strings.Join(f.Rules, "; ") + ")")
	}
	return b.String()
}

// Snapshot proves every kind of s that has several versions, in the
// snapshot's order.
func Snapshot(s *registry.Snapshot) []Failure {
	var out []Failure
	for _, r := range s.Resources() {
		out = append(out, Kind(r)...)
	}
	return out
}

// Kind proves one kind's conversions; a kind with one version with a
// schema, or whose hub has no schema (it keeps every field), has nothing to
// prove. A kind without rules is proved too, with its storage version as
// the hub: its versions must then have the same shape.
func Kind(r *registry.Resource) []Failure {
	p := newProver(r)
	if len(p.versions) < 2 || p.hub == nil || p.hub.Schema == nil {
		return nil
	}
	for _, a := range p.versions {
		p.version(a)
	}
	return p.failures
}

// version proves the objects generated from one version.
func (p *prover) version(a *registry.Version) {
	valid := 0
	var firstInvalid string
	for i := range variants {
		obj, why := p.generate(a, i)
		if why != "" {
			firstInvalid = why
			continue
		}
		valid++
		p.object(a, obj)
	}
	if valid == 0 {
		p.fail(failure{what: "cannot generate a valid " + a.Name + " object from its schema: " + firstInvalid})
	}
}

// object proves one generated object of version a.
func (p *prover) object(a *registry.Version, obj []byte) {
	hub, ok := p.toHub(a, obj)
	if !ok {
		return
	}
	// The simplest trip first, as the one fault is told for the first trip
	// that shows it: back to a itself, then through the hub alone.
	p.roundTrip(a, a, obj, hub)
	if a != p.hub {
		p.roundTrip(a, p.hub, obj, hub)
	}
	for _, b := range p.versions {
		if b != a && b != p.hub {
			p.roundTrip(a, b, obj, hub)
		}
	}
}

// rulesFile names where a failure is: the rules file, or the definition.
func (p *prover) rulesFile() (string, bool) {
	if p.r.Conversion == nil {
		return p.r.File, false
	}
	return p.r.ConversionFile, true
}

// rulesAt lists the rules of the given versions that touch the field.
func (p *prover) rulesAt(keys []string, versions ...string) []string {
	var out []string
	for _, v := range versions {
		for _, r := range p.rules.RulesAt(v, keys) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}
