package convert

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// ruleSpec says how to build one kind of rule from its fields.
type ruleSpec struct {
	fields string // the fields it takes, space separated
	build  func(a *args) rule
}

// ruleSpecs is the rule vocabulary, by name.
var ruleSpecs map[string]ruleSpec

// Why init: forEach decodes nested rules through ruleSpecs, a cycle that a
// plain initializer may not have.
func init() {
	ruleSpecs = vocabularySpecs()
}

func vocabularySpecs() map[string]ruleSpec {
	return map[string]ruleSpec{
		"move":           {"from to", func(a *args) rule { f, t := a.fromTo(true); return move{f, t} }},
		"copy":           {"from to", func(a *args) rule { f, t := a.fromTo(true); return copyRule{f, t} }},
		"set":            {"path value", func(a *args) rule { return set{a.path("path", false), a.value()} }},
		"default":        {"path value", func(a *args) rule { return defaultRule{a.path("path", false), a.value()} }},
		"delete":         {"path", func(a *args) rule { return deleteRule{a.path("path", false)} }},
		"wrap":           {"from to", func(a *args) rule { f, t := a.fromTo(false); return wrap{f, t} }},
		"unwrap":         {"from to", func(a *args) rule { f, t := a.fromTo(false); return unwrap{f, t} }},
		"mapValues":      {"path values", func(a *args) rule { return newMapValues(a.path("path", true), a.values()) }},
		"split":          {"from to separator", func(a *args) rule { f, t := a.fromTo(false); return split{f, t, a.separator()} }},
		"join":           {"from to separator", func(a *args) rule { f, t := a.fromTo(false); return join{f, t, a.separator()} }},
		"coerce":         {"path to from", buildCoerce},
		"toAnnotation":   {"from key", func(a *args) rule { return a.toMeta(annotations) }},
		"toLabel":        {"from key", func(a *args) rule { return a.toMeta(labels) }},
		"fromAnnotation": {"key to", func(a *args) rule { return a.fromMeta(annotations) }},
		"fromLabel":      {"key to", func(a *args) rule { return a.fromMeta(labels) }},
		"forEach":        {"path rules", buildForEach},
	}
}

// decodeSteps decodes a list of rules; where names the list.
func decodeSteps(list []json.RawMessage, where string, ps *Problems, nested bool) []step {
	steps := make([]step, 0, len(list))
	for i, raw := range list {
		at := fmt.Sprintf("%s[%d]", where, i)
		if r := decodeRule(raw, at, ps, nested); r != nil {
			steps = append(steps, step{rule: r, where: at})
		}
	}
	return steps
}

// decodeRule decodes one rule: a mapping whose one key is the rule's name.
func decodeRule(raw json.RawMessage, where string, ps *Problems, nested bool) rule {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) != 1 {
		ps.add(where, "a rule is a mapping with one key, the rule's name ("+vocabulary()+")"+foundKeys(m))
		return nil
	}
	name := slices.Collect(maps.Keys(m))[0]
	spec, ok := ruleSpecs[name]
	if !ok {
		ps.add(where, fmt.Sprintf("unknown rule %q; the rules are %s", name, vocabulary()))
		return nil
	}
	a := &args{name: name, where: where, nested: nested, ps: ps}
	if json.Unmarshal(m[name], &a.m) != nil || a.m == nil {
		a.failf("must be a mapping of the rule's fields (%s)", spec.fields)
		return nil
	}
	before := len(*ps)
	for _, f := range slices.Sorted(maps.Keys(a.m)) {
		if !slices.Contains(strings.Fields(spec.fields), f) {
			a.failf("unknown field %q; %s takes %s", f, name, spec.fields)
		}
	}
	r := spec.build(a)
	if len(*ps) > before {
		return nil
	}
	return r
}

func vocabulary() string {
	return strings.Join(slices.Sorted(maps.Keys(ruleSpecs)), ", ")
}

func foundKeys(m map[string]json.RawMessage) string {
	if len(m) < 2 {
		return ""
	}
	return "; found " + strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

func buildCoerce(a *args) rule {
	r := coerce{path: a.path("path", true), to: a.text("to", true), from: a.text("from", false)}
	for _, f := range [][2]string{{"to", r.to}, {"from", r.from}} {
		if f[1] != "" && !isScalarType(f[1]) {
			a.failf("%s %q: must be string, integer, number or boolean", f[0], f[1])
		}
	}
	return r
}

func buildForEach(a *args) rule {
	r := forEach{path: a.path("path", false)}
	var list []json.RawMessage
	if err := json.Unmarshal(a.m["rules"], &list); err != nil || list == nil {
		a.failf("rules: must be a list of rules")
		return r
	}
	r.steps = decodeSteps(list, a.where+".forEach.rules", a.ps, true)
	return r
}

func (a *args) toMeta(kind string) rule {
	key := a.key()
	return toMeta{from: a.path("from", false), kind: kind, key: key, at: metaPath(kind, key)}
}

func (a *args) fromMeta(kind string) rule {
	key := a.key()
	return fromMeta{kind: kind, key: key, at: metaPath(kind, key), to: a.path("to", false)}
}

// key reads the annotation or label name of toAnnotation and its kin.
func (a *args) key() string {
	k := a.text("key", true)
	if strings.ContainsAny(k, " \t\n") {
		a.failf("key %q: must not contain spaces", k)
	}
	return k
}

// separator reads the separator of split and join.
func (a *args) separator() string { return a.text("separator", true) }

// value reads the constant of set and default.
func (a *args) value() string {
	raw, ok := a.m["value"]
	if !ok {
		a.failf("value is required")
		return ""
	}
	return gjson.ParseBytes(raw).Raw
}

// values reads mapValues' map and checks it is a bijection.
func (a *args) values() map[string]string {
	var values map[string]string
	if err := json.Unmarshal(a.m["values"], &values); err != nil || len(values) == 0 {
		a.failf(`values: must be a non-empty mapping of strings to strings (quote what YAML reads otherwise: "on", "no", "1")`)
		return nil
	}
	if x, y, dup := duplicateValue(values); dup {
		a.failf("values are not a bijection: %q and %q both map to %q", x, y, values[x])
	}
	return values
}
