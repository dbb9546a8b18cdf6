package convert

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/dynapi/dynapi/engine"
)

// Rules are the conversion rules of one kind, from Parse (and Bind). They
// are immutable and safe for concurrent use. A nil *Rules is a kind with
// no rules file: every version has the hub's shape, and Convert rewrites
// apiVersion only, like the CustomResourceDefinition strategy None.
type Rules struct {
	group, kind, hub string
	versions         map[string]*versionRules
}

// versionRules are the rules between one version and the hub.
type versionRules struct {
	toHub, fromHub []step
	fromHubWritten bool // the file spells fromHub out; otherwise it is derived
}

// Group is the API group the rules are for; "" for a nil Rules.
func (r *Rules) Group() string {
	if r == nil {
		return ""
	}
	return r.group
}

// Kind is the kind the rules are for; "" for a nil Rules.
func (r *Rules) Kind() string {
	if r == nil {
		return ""
	}
	return r.kind
}

// Hub is the version every conversion goes through; "" for a nil Rules.
func (r *Rules) Hub() string {
	if r == nil {
		return ""
	}
	return r.hub
}

// Versions lists the versions that have rules, sorted by name. The hub
// and the versions not listed have the hub's shape.
func (r *Rules) Versions() []string {
	if r == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(r.versions))
}

// Convert converts obj, an object of version from, into version to: from
// into the hub by from's toHub rules, then into to by to's fromHub rules,
// and sets apiVersion to to. obj is not modified. from == to returns obj
// itself. A nil Rules rewrites apiVersion only, keeping obj's group.
// Errors: BadRequest when obj is not a JSON object.
func (r *Rules) Convert(obj []byte, from, to string) ([]byte, error) {
	if from == to {
		return obj, nil
	}
	if trimmed := bytes.TrimLeft(obj, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, engine.Errorf(engine.CodeBadRequest, "convert: the object must be a JSON object")
	}
	d := newDoc(obj)
	group := r.Group()
	if r == nil {
		group, _ = engine.ParseAPIVersion(d.value(apiVersionPath).Str)
	}
	r.viaHub(d, from, to)
	d.putRaw(apiVersionPath, jsonString(engine.GroupVersionKind{Group: group, Version: to}.APIVersion()))
	out := d.bytes(len(obj))
	d.release()
	return out, nil
}

var apiVersionPath = newPath([]string{"apiVersion"})

// viaHub applies from's toHub rules, then to's fromHub rules.
func (r *Rules) viaHub(d doc, from, to string) {
	if r == nil {
		return
	}
	if v := r.versions[from]; v != nil {
		run(v.toHub, d)
	}
	if v := r.versions[to]; v != nil {
		run(v.fromHub, d)
	}
}

// Project returns what version via keeps of obj, an object of version
// from, seen in from again: obj converted to via, pruned (prune applies
// via's schema; nil prunes nothing), and converted back. Remainder of obj
// and its projection is what via cannot hold. Errors: those of Convert,
// and prune's.
func (r *Rules) Project(obj []byte, from, via string, prune func([]byte) ([]byte, error)) ([]byte, error) {
	view, err := r.Convert(obj, from, via)
	if err != nil {
		return nil, err
	}
	if prune != nil {
		if view, err = prune(view); err != nil {
			return nil, fmt.Errorf("project %s through %s: %w", r.Kind(), via, err)
		}
	}
	return r.Convert(view, via, from)
}

// ConvertsMetadata reports whether any rule reads or writes a path under
// metadata (toAnnotation, toLabel, or a rule on a metadata field), so
// that an object's metadata may differ between versions. False for a nil
// Rules.
func (r *Rules) ConvertsMetadata() bool {
	if r == nil {
		return false
	}
	for _, v := range r.versions {
		for _, steps := range [][]step{v.toHub, v.fromHub} {
			if stepsTouch(steps, "metadata") {
				return true
			}
		}
	}
	return false
}

// stepsTouch reports whether any of steps uses a path under the top-level
// field key.
func stepsTouch(steps []step, key string) bool {
	for _, s := range steps {
		for _, u := range s.rule.uses() {
			if len(u.p.keys) > 0 && u.p.keys[0] == key {
				return true
			}
		}
	}
	return false
}
