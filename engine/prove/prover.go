package prove

import (
	"cmp"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/convert"
	"github.com/dynapi/dynapi/engine/registry"
)

// prover proves one kind.
type prover struct {
	r        *registry.Resource
	rules    *convert.Rules
	hub      *registry.Version
	versions []*registry.Version // those with a schema: the others have no objects
	failures []Failure
	seen     map[string]bool // failures reported, so that one fault is told once
}

func newProver(r *registry.Resource) *prover {
	p := &prover{r: r, rules: r.Conversion, seen: map[string]bool{}}
	hub := r.StorageVersion
	if r.Conversion != nil {
		hub = r.Conversion.Hub()
	}
	for _, v := range r.Versions {
		if v.Schema != nil {
			p.versions = append(p.versions, v)
		}
		if v.Name == hub {
			p.hub = v
		}
	}
	return p
}

// failure is a Failure being reported: what is the same every time the
// fault shows, detail the values of the first object that showed it.
type failure struct {
	keys         []string // the field
	field        string   // the field as the message writes it; from keys when ""
	what, detail string
	rules        []string
	// same tells faults apart for telling each once; what when "". A round
	// trip that fails through every version is one fault, not one per version.
	same string
}

func (p *prover) fail(f failure) {
	if f.field == "" {
		f.field = fieldPath(f.keys)
	}
	key := f.field + "\x00" + cmp.Or(f.same, f.what) + "\x00" + strings.Join(f.rules, "\x00")
	if p.seen[key] {
		return
	}
	p.seen[key] = true
	file, conversion := p.rulesFile()
	reason := f.what
	if f.detail != "" {
		reason += ": " + f.detail
	}
	p.failures = append(p.failures, Failure{File: file, Conversion: conversion, Rules: f.rules, Field: f.field, Reason: reason})
}

// generate makes the i-th object of version v, as a client would write
// it, pruned and defaulted as the server stores it; why says why it is
// not valid, when it is not.
func (p *prover) generate(v *registry.Version, i int) (obj []byte, why string) {
	g := newGenerator(i)
	obj = g.object(nil, gjson.ParseBytes(v.Schema.Raw()), 0)
	gvk := engine.GroupVersionKind{Group: p.r.Group, Version: v.Name, Kind: p.r.Kind}
	metadata := `{"name":"proof-` + string(rune('a'+i)) + `"`
	if p.r.Namespaced {
		metadata += `,"namespace":"default"`
	}
	if i%2 == 0 {
		metadata += `,"labels":{"app":"proof"},"annotations":{"example.com/note":"kept"}`
	}
	obj, _ = sjson.SetBytes(obj, "apiVersion", gvk.APIVersion())
	obj, _ = sjson.SetBytes(obj, "kind", gvk.Kind)
	obj, _ = sjson.SetRawBytes(obj, "metadata", []byte(metadata+"}"))
	obj, errs := write(v, obj)
	if len(errs) > 0 {
		return nil, variants[i].name + ": " + errs[0].Path + ": " + errs[0].Message
	}
	return obj, ""
}

// write prunes, defaults and validates an object in version v, as the
// server does on a write.
func write(v *registry.Version, obj []byte) ([]byte, []engine.FieldError) {
	obj, _ = v.Schema.Prune(obj)
	obj, err := v.Schema.Default(obj)
	if err != nil {
		return nil, []engine.FieldError{{Message: err.Error()}}
	}
	return obj, v.Schema.Validate(obj)
}

// convert converts with the kind's rules; the objects are JSON objects,
// which is all Convert can fail on.
func (p *prover) convert(obj []byte, from, to string) []byte {
	out, err := p.rules.Convert(obj, from, to)
	if err != nil {
		panic("prove: " + err.Error())
	}
	return out
}
