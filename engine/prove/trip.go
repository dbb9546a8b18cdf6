package prove

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/convert"
	"github.com/dynapi/dynapi/engine/registry"
)

// toHub converts an object of version a to the hub, and checks that the
// hub keeps every field and accepts the result; ok is false when it does
// not, so that the round trips are not proved on a broken object.
func (p *prover) toHub(a *registry.Version, obj []byte) ([]byte, bool) {
	hub := p.convert(obj, a.Name, p.hub.Name)
	pruned, removed := p.hub.Schema.Prune(hub)
	ok := true
	for _, field := range removed {
		keys, get := parseField(field)
		if v := gjson.GetBytes(hub, get); v.IsObject() && len(v.Map()) == 0 {
			continue // an empty object is no field
		}
		ok = false
		p.fail(failure{keys: keys, field: field, rules: p.rulesAt(keys, a.Name),
			what: "a field of " + a.Name + " does not reach the hub " + p.hub.Name + ": " + p.hub.Name + "'s schema has no such field" + p.noRule(keys, a.Name)})
	}
	for _, e := range p.hub.Schema.Validate(pruned) {
		keys, _ := parseField(e.Path)
		ok = false
		p.fail(failure{keys: keys, field: e.Path, rules: p.rulesAt(keys, a.Name),
			what: a.Name + " → " + p.hub.Name + ": the converted object is invalid", detail: e.Message})
	}
	return pruned, ok
}

// roundTrip proves a → hub → b → hub → a for one object of version a,
// with what b cannot hold kept by the remainder, as storage keeps it.
func (p *prover) roundTrip(a, b *registry.Version, obj, hub []byte) {
	view, errs := write(b, p.convert(hub, p.hub.Name, b.Name))
	for _, e := range errs {
		keys, _ := parseField(e.Path)
		p.fail(failure{keys: keys, field: e.Path, rules: p.rulesAt(keys, b.Name),
			what: p.hub.Name + " → " + b.Name + ": the converted object is invalid", detail: e.Message})
	}
	if len(errs) > 0 {
		return
	}
	back, _ := p.hub.Schema.Prune(p.convert(view, b.Name, p.hub.Name))
	restored, err := convert.Restore(back, convert.Remainder(hub, back))
	if err != nil || convert.Remainder(hub, restored) != nil {
		p.fail(failure{what: "the remainder of " + b.Name + " does not restore the object"})
		return
	}
	again, _ := write(a, p.convert(restored, p.hub.Name, a.Name))
	trip := a.Name + " → " + p.hub.Name + " → " + b.Name + " → " + p.hub.Name + " → " + a.Name
	p.diff(obj, again, func(keys []string, was, got string) {
		p.fail(failure{keys: keys, rules: p.rulesAt(keys, a.Name, b.Name), same: "round trip from " + a.Name,
			what: "the round trip " + trip + " changes the field" + p.noRule(keys, a.Name, b.Name), detail: "was " + was + ", got " + got})
	})
}

// noRule explains a fault no rule touches: the versions differ there.
func (p *prover) noRule(keys []string, versions ...string) string {
	if len(p.rulesAt(keys, versions...)) > 0 {
		return ""
	}
	if p.rules == nil {
		return " (the kind has no conversion rules: its versions must have the same fields)"
	}
	return " (no rule converts it)"
}

// diff calls fn for every field where want and got differ, empty objects
// counting as absent.
func (p *prover) diff(want, got []byte, fn func(keys []string, was, got string)) {
	entries := gjson.ParseBytes(convert.Remainder(dropEmpty(want), dropEmpty(got)))
	entries.ForEach(func(_, e gjson.Result) bool {
		var keys []string
		for _, k := range e.Get("path").Array() {
			keys = append(keys, k.Str)
		}
		fn(keys, shown(e.Get("original")), shown(e.Get("projected")))
		return true
	})
}

func shown(v gjson.Result) string {
	if !v.Exists() {
		return "absent"
	}
	return v.Raw
}
