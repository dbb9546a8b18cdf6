package convert

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	// Kubernetes' own YAML-to-JSON conversion, so a rules file reads as
	// kubectl would read it.
	"sigs.k8s.io/yaml"
)

// file is a rules file as written.
type file struct {
	Group    *string                `json:"group"`
	Kind     string                 `json:"kind"`
	Hub      string                 `json:"hub"`
	Versions map[string]versionFile `json:"versions"`
}

type versionFile struct {
	ToHub   []json.RawMessage `json:"toHub"`
	FromHub json.RawMessage   `json:"fromHub"` // absent: derived from toHub
}

// Parse reads a rules file (YAML or JSON: group, kind, hub, versions; see
// the package documentation) and returns its rules, with fromHub derived
// where the file leaves it out. The rules are not checked against any
// schema: call Bind for that before using them. Errors: Problems, naming
// every rule at fault and why ("versions.v1.toHub[2]: mapValues: values
// are not a bijection: \"a\" and \"b\" both map to \"x\""). With
// Problems, the Rules returned, when not nil, hold the rules that could be
// read, so that Bind can report their problems too; they must not convert.
func Parse(src []byte) (*Rules, error) {
	doc, err := yaml.YAMLToJSONStrict(src)
	if err != nil {
		return nil, Problems{{Reason: "invalid YAML: " + strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")}}
	}
	var f file
	if err := strictUnmarshal(doc, &f); err != nil {
		return nil, Problems{{Reason: err.Error()}}
	}
	var ps Problems
	r := f.header(&ps)
	complete := len(ps) == 0
	for _, name := range slices.Sorted(maps.Keys(f.Versions)) {
		where := "versions." + name
		if name == f.Hub {
			ps.add(where, "the hub needs no rules: it is what the other versions convert to")
			continue
		}
		if v := f.Versions[name].rules(where, &ps); v != nil {
			r.versions[name] = v
		}
	}
	if !complete {
		return nil, ps
	}
	return r, ps.err()
}

// header checks and copies group, kind and hub.
func (f *file) header(ps *Problems) *Rules {
	if f.Group == nil {
		ps.add("group", `is required ("" for the core group)`)
	}
	if f.Kind == "" {
		ps.add("kind", "is required")
	}
	if f.Hub == "" {
		ps.add("hub", "is required: the version every conversion goes through")
	}
	r := &Rules{kind: f.Kind, hub: f.Hub, versions: map[string]*versionRules{}}
	if f.Group != nil {
		r.group = *f.Group
	}
	return r
}

// rules decodes one version's rule lists.
func (v versionFile) rules(where string, ps *Problems) *versionRules {
	out := &versionRules{toHub: decodeSteps(v.ToHub, where+".toHub", ps, false)}
	raw := bytes.TrimSpace(v.FromHub)
	if len(raw) == 0 || string(raw) == "null" {
		out.fromHub = invert(out.toHub, where+".fromHub")
		return out
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		ps.add(where+".fromHub", "must be a list of rules")
		return nil
	}
	out.fromHub, out.fromHubWritten = decodeSteps(list, where+".fromHub", ps, false), true
	return out
}

// strictUnmarshal decodes JSON refusing unknown fields, with errors that
// speak of the file's fields rather than Go types.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr):
		return fmt.Errorf("%s: must be %s, not %s", cmp.Or(typeErr.Field, "the file"), shapeName(typeErr.Type), typeErr.Value)
	}
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
}

// shapeName names a Go type the way a YAML author thinks of it.
func shapeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Pointer:
		return shapeName(t.Elem())
	}
	return "a mapping"
}
