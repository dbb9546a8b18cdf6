package schema

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/schema/cel"
)

// docURL names the translated document inside the jsonschema compiler.
const docURL = "mem://openapiv3schema.json"

// Compile compiles an openAPIV3Schema given as JSON: it translates the
// OpenAPI v3.0 dialect (nullable, exclusive bounds, x-kubernetes-*) to JSON
// Schema 2020-12 for the validator, keeps the structural tree for pruning
// and defaulting, and checks every default against its own schema. The
// error lists every problem, one per line, as "schema.path: reason"
// ("properties.spec.properties.replicas.type: unknown type \"int\""); it is
// a plain error, for the caller to report as a problem of the definition.
//
// A schema with the same content as one compiled before and still in use
// (the same JSON, whatever its key order and spacing) is that one: see
// cache.go.
func Compile(openAPIV3Schema []byte) (*Schema, error) {
	decoded, err := decodeJSON(openAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: invalid JSON: %w", err)
	}
	m, ok := decoded.(map[string]any)
	if !ok {
		return nil, errors.New("openAPIV3Schema: must be a schema object")
	}
	key := keyOf(m)
	if s := compiled.get(key); s != nil {
		return s, nil
	}
	s, err := compile(openAPIV3Schema, m)
	if err != nil {
		return nil, err
	}
	s.stamp = stampOf(key)
	return compiled.put(key, s), nil
}

// compile compiles a schema whose JSON decoded to m. The quick check
// and the validator wait for their first use (see lazy.go), unless a
// default needs the validator.
func compile(openAPIV3Schema []byte, m map[string]any) (*Schema, error) {
	compiles.Add(1)
	t := newTranslator()
	out, root := t.root(m)
	if len(t.problems) > 0 {
		return nil, problemsError(t.problems)
	}
	d := &defaultChecker{out: out, formats: t.formats}
	t.prepareDefaults(d)
	if len(t.problems) > 0 {
		return nil, problemsError(t.problems)
	}
	root.finalize()
	rules, err := cel.Compile(openAPIV3Schema)
	if err != nil {
		return nil, err
	}
	s := &Schema{raw: bytes.Clone(openAPIV3Schema), root: root, rules: t.rules, cel: rules}
	if d.validator != nil {
		s.setValidator(d.validator)
	}
	return s, nil
}

// root translates the root schema. apiVersion, kind and metadata belong to
// other code and are neither pruned, defaulted nor validated here, except
// the metadata.name and metadata.generateName rules kube-apiserver allows.
func (t *translator) root(m map[string]any) (map[string]any, *node) {
	view := maps.Clone(m)
	var metadata map[string]any
	if props, ok := m["properties"].(map[string]any); ok {
		metadata = metadataRules(props["metadata"])
		props = maps.Clone(props)
		maps.DeleteFunc(props, func(k string, _ any) bool { return metaFields[k] })
		view["properties"] = props
	}
	if required, ok := m["required"].([]any); ok {
		view["required"] = slices.DeleteFunc(slices.Clone(required), func(v any) bool {
			s, _ := v.(string)
			return metaFields[s]
		})
	}
	out, n := t.translate(view, "", "", true)
	n.embedded = true
	if metadata != nil {
		out["properties"].(map[string]any)["metadata"], _ = t.translate(metadata, "properties.metadata", "", false)
	}
	return out, n
}

// metadataRules keeps the name and generateName schemas of metadata.
func metadataRules(raw any) map[string]any {
	md, _ := raw.(map[string]any)
	props, _ := md["properties"].(map[string]any)
	kept := make(map[string]any)
	for _, k := range []string{"name", "generateName"} {
		if v, ok := props[k]; ok {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return map[string]any{"type": "object", "properties": kept}
}

// compileDoc compiles the translated document with kube-apiserver's formats.
func compileDoc(doc []byte, formats map[string]func(any) bool) (*jsonschema.Compiler, *jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	maps.Copy(c.Formats, formats)
	if err := c.AddResource(docURL, bytes.NewReader(doc)); err != nil {
		return nil, nil, err
	}
	v, err := c.Compile(docURL)
	return c, v, err
}

// prepareDefaults checks every default and stores it ready to insert:
// pruned (a default with unknown fields is an error, as in kube-apiserver),
// defaulted deeper, and valid against its own schema. Children go first, so
// a parent's default is defaulted with its children's final defaults.
func (t *translator) prepareDefaults(d *defaultChecker) {
	for _, pd := range slices.Backward(t.defaults) {
		path := sub(pd.path, "default")
		raw, removed := prune(marshal(pd.value), pd.node)
		if len(removed) > 0 {
			t.problemf(path, "unknown fields: %s", strings.Join(removed, ", "))
			continue
		}
		pd.node.finalize()
		raw = applyDefaults(gjson.ParseBytes(raw), raw, pd.node)
		if d.check(t, path, pd, raw) {
			pd.node.def = raw
		}
	}
}

// compileProblems lists the leaf errors of a failed compilation, named by
// their path in the translated document (the same as in the source for
// everything but the root's apiVersion, kind and metadata).
func compileProblems(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		for _, c := range e.Causes {
			walk(c)
		}
		if len(e.Causes) == 0 {
			out = append(out, schemaPath(e.InstanceLocation)+": "+e.Message)
		}
	}
	walk(ve)
	return out
}

var indexToken = regexp.MustCompile(`^[0-9]+$`)

// schemaPath renders a pointer into a schema as a dotted schema path.
func schemaPath(ptr string) string {
	var path string
	for _, t := range pointerTokens(ptr) {
		if indexToken.MatchString(t) {
			path += "[" + t + "]"
		} else {
			path = sub(path, t)
		}
	}
	return path
}

// problemsError joins problems into one error, one per line.
func problemsError(problems []string) error {
	return errors.New(strings.Join(problems, "\n"))
}
