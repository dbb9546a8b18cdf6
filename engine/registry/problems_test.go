package registry

import (
	"strings"
	"testing"
	"testing/fstest"
)

// gadget is a good definition put beside every bad one: it must load whatever
// is wrong with its neighbour.
const gadget = `group: test.example.com
kind: Gadget
plural: gadgets
shortNames: [gd]
scope: Namespaced
versions:
- name: v1
  storage: true
  schema: {type: object, properties: {spec: {type: object, properties: {color: {type: string}}}}}
`

// thing builds a native definition of kind Thing in test.example.com,
// replacing the lines of the default that the extra lines set, so a case
// spells out only what it breaks.
func thing(extra ...string) string {
	lines := map[string]string{
		"group":    "group: test.example.com",
		"kind":     "kind: Thing",
		"plural":   "plural: things",
		"scope":    "scope: Namespaced",
		"versions": "versions:\n" + versionDoc("v1", "  storage: true"),
	}
	order := []string{"group", "kind", "plural", "scope", "versions"}
	var out []string
	for _, e := range extra {
		key, _, _ := strings.Cut(e, ":")
		if _, ok := lines[key]; ok {
			lines[key] = e
			continue
		}
		out = append(out, e)
	}
	for _, k := range order {
		if lines[k] != "-" && lines[k] != k+": -" {
			out = append(out, lines[k])
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// versionDoc is one item of a versions list, with a schema unless extra says schema.
func versionDoc(name string, extra ...string) string {
	s := "- name: " + name + "\n"
	hasSchema := false
	for _, e := range extra {
		s += e + "\n"
		hasSchema = hasSchema || strings.HasPrefix(strings.TrimSpace(e), "schema:")
	}
	if !hasSchema {
		s += "  schema: {type: object, properties: {spec: {type: object, properties: " +
			"{color: {type: string}, size: {type: integer}, labels: {type: object}}}}}\n"
	}
	return s
}

// crdDoc is a CustomResourceDefinition of kind Thing; fields replace parts of it.
func crdDoc(name, group, specExtra string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `
spec:
  group: ` + group + `
  names: {kind: Thing, plural: things}
  scope: Namespaced
` + specExtra + `  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`
}

func TestLoadProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string // default "b/bad.yaml"
		content  string
		line     int // expected Problem.Line; 0 means not checked
		contains string
	}{
		{name: "group not a subdomain", content: thing("group: Test_Example"), contains: `group "Test_Example": a lowercase RFC 1123 subdomain`},
		{name: "group missing", content: thing("group: -"), contains: `group is required ("" for the core group)`},
		{name: "plural upper case", content: thing("plural: Things"), contains: `plural "Things": a DNS-1035 label`},
		{name: "plural missing", content: thing("plural: -"), contains: "plural is required"},
		{name: "singular bad", content: thing("singular: thing_1"), contains: `singular "thing_1": a DNS-1035 label`},
		{name: "kind missing", content: thing("kind: -"), contains: "kind is required"},
		{name: "kind lower case", content: thing("kind: thing"), contains: `kind "thing": must start with an upper-case letter`},
		{name: "kind with dash", content: thing("kind: My-Thing"), contains: `kind "My-Thing": must start with an upper-case letter`},
		{name: "kind equals listKind", content: thing("listKind: Thing"), contains: "kind and listKind may not be the same"},
		{name: "listKind bad", content: thing("listKind: Thing_List"), contains: `listKind "Thing_List": may have mixed case`},
		{name: "short name bad", content: thing("shortNames: [T]"), contains: `shortNames "T": a DNS-1035 label`},
		{name: "category bad", content: thing("categories: [all.of.them]"), contains: `categories "all.of.them"`},
		{name: "scope missing", content: thing("scope: -"), contains: "scope is required"},
		{name: "scope bad", content: thing("scope: Global"), contains: `scope "Global": must be Namespaced or Cluster`},
		{name: "no versions", content: thing("versions: []"), contains: "at least one version is required"},
		{name: "version name bad", content: thing("versions:\n" + versionDoc("V1", "  storage: true")), contains: `version "V1": name "V1": a DNS-1035 label`},
		{name: "version name missing", content: thing("versions:\n" + versionDoc("", "  storage: true")), contains: "versions[0]: name is required"},
		{name: "version twice", content: thing("versions:\n" + versionDoc("v1", "  storage: true") + versionDoc("v1")), contains: `version "v1": listed twice`},
		{name: "no storage version", content: thing("versions:\n" + versionDoc("v1")), contains: "exactly one version must be the storage version (storage: true), found 0"},
		{name: "two storage versions", content: thing("versions:\n" + versionDoc("v1", "  storage: true") + versionDoc("v2", "  storage: true")), contains: "found 2 [v1 v2]"},
		{name: "served without schema", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  schema: null")), contains: `version "v1": schema is required for a served version`},
		{name: "schema does not compile", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  schema: {type: bogus}")), contains: `version "v1": schema: `},
		{name: "warning on a version not deprecated", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  deprecationWarning: old")), contains: "deprecationWarning: can only be set for deprecated versions"},
		{name: "empty warning", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  deprecated: true", `  deprecationWarning: ""`)), contains: "deprecationWarning: must not be an empty string"},
		{name: "warning too long", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  deprecated: true", "  deprecationWarning: "+strings.Repeat("x", 257))), contains: "must be <= 256 characters long"},
		{name: "warning not printable", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  deprecated: true", `  deprecationWarning: "a\u0007b"`)), contains: "must only contain printable UTF-8 characters"},
		{name: "column type", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  printerColumns: [{name: C, type: float, jsonPath: .spec.color}]")), contains: `printerColumns[0]: type "float": must be one of boolean, date, integer, number, string`},
		{name: "column format", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  printerColumns: [{name: C, type: string, format: uuid, jsonPath: .spec.color}]")), contains: `printerColumns[0]: format "uuid": must be one of`},
		{name: "column name", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  printerColumns: [{type: string, jsonPath: .spec.color}]")), contains: "printerColumns[0]: name is required"},
		{name: "column path", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  printerColumns: [{name: C, type: string, jsonPath: spec.color}]")), contains: `printerColumns[0].jsonPath "spec.color": must be a simple json path starting with .`},
		{name: "scale spec path", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  subresources: {scale: {specReplicasPath: .status.n, statusReplicasPath: .status.n}}")), contains: `subresources.scale.specReplicasPath ".status.n": must be a json path under .spec.`},
		{name: "scale status path missing", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  subresources: {scale: {specReplicasPath: .spec.n}}")), contains: "subresources.scale.statusReplicasPath is required"},
		{name: "scale selector path", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  subresources: {scale: {specReplicasPath: .spec.n, statusReplicasPath: .status.n, labelSelectorPath: .metadata.labels}}")), contains: "must be a json path under .spec. or .status."},
		{name: "status subresource value", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  subresources: {status: enabled}")), contains: "subresources.status: must be {} or true (on)"},
		{name: "selectable field unknown", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  selectableFields: [.spec.colour]")), contains: `selectableFields[0] ".spec.colour": is an invalid path`},
		{name: "selectable field type", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  selectableFields: [.spec.labels]")), contains: "must point to a field of type string, boolean or integer"},
		{name: "selectable field metadata", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  selectableFields: [.metadata.name]")), contains: "must not point to fields in metadata"},
		{name: "selectable field twice", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  selectableFields: [.spec.color, {jsonPath: .spec.color}]")), contains: `selectableFields[1] ".spec.color": duplicate value`},
		{name: "selectable fields too many", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  selectableFields: [.a, .b, .c, .d, .e, .f, .g, .h, .i]")), contains: "selectableFields: must have at most 8 items"},
		{name: "unknown top-level field", content: thing("plurals: things"), line: 1, contains: `unknown field "plurals"`},
		{name: "unknown version field", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  printerColums: []")), line: 8, contains: `unknown field "printerColums"`},
		{name: "wrong type", content: thing("versions:\n" + versionDoc("v1", "  storage: true", "  served: yes please")), line: 8, contains: "versions.served: must be a boolean, not string"},
		{name: "not a mapping", content: "- a\n- b\n", contains: "a definition must be a mapping (an object), not a list"},
		{name: "duplicate key", content: thing("shortNames: [a]", "shortNames: [b]"), line: 2, contains: `invalid YAML: key "shortNames" already set in map`},
		{name: "yaml syntax", content: "group: test.example.com\nkind: Thing\nplural: [things\n", line: 3, contains: "invalid YAML: "},
		{name: "yaml syntax in second document", content: gadget + "---\n# a comment\ngroup: x\n  kind: Thing\n", line: 13, contains: "invalid YAML: "},
		{name: "json syntax", file: "b/bad.json", content: "{\n  \"group\": \"test.example.com\",\n  \"kind\": Thing\n}\n", line: 3, contains: "invalid JSON: "},
		{name: "plural taken", content: thing("plural: gadgets"), contains: `resource gadgets.test.example.com is already defined in a/gadget.yaml`},
		{name: "short name is a plural", content: thing("shortNames: [gadgets]"), contains: `shortName "gadgets" collides with the plural "gadgets" of gadgets.test.example.com (defined in a/gadget.yaml)`},
		{name: "kind is a short name", content: thing("kind: Gd"), contains: `kind "Gd" collides with the shortName "gd"`},
		{name: "plural is a kind", content: thing("plural: gadget"), contains: `plural "gadget" collides with the singular "gadget"`},
		{name: "short names collide", content: thing("shortNames: [gd]"), contains: `shortName "gd" collides with the shortName "gd"`},
		{name: "crd name", content: crdDoc("thing.test.example.com", "test.example.com", ""), contains: `metadata.name "thing.test.example.com": must be spec.names.plural+"."+spec.group ("things.test.example.com")`},
		{name: "crd group without dot", content: crdDoc("things.test", "test", ""), contains: `spec.group "test": should be a domain with at least one dot`},
		{name: "crd group missing", content: crdDoc("things.", "", ""), contains: "spec.group is required"},
		{name: "crd preserveUnknownFields", content: crdDoc("things.test.example.com", "test.example.com", "  preserveUnknownFields: true\n"), contains: "spec.preserveUnknownFields: cannot be true"},
		{name: "crd unknown spec field", content: crdDoc("things.test.example.com", "test.example.com", "  validation: {}\n"), line: 9, contains: `unknown field "validation"`},
		{name: "crd v1beta1", content: "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n", contains: "apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22"},
		{name: "not a definition", content: "apiVersion: apps/v1\nkind: Deployment\n", contains: "not a definition: apiVersion apps/v1, kind Deployment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := tt.file
			if file == "" {
				file = "b/bad.yaml"
			}
			fsys := fstest.MapFS{
				"a/gadget.yaml": {Data: []byte(gadget)},
				file:            {Data: []byte(tt.content)},
			}
			snap, problems := loadFiles(fsys, nil)
			if _, _, ok := snap.Lookup("test.example.com", "v1", "gadgets"); !ok {
				t.Errorf("the good file beside the bad one did not load: %v", problems)
			}
			if len(snap.Resources()) != 1 {
				t.Errorf("loaded %d resources, want only the good one", len(snap.Resources()))
			}
			if !hasProblem(problems, file, tt.line, tt.contains) {
				t.Errorf("want a problem in %s (line %d) containing %q, got:\n%s", file, tt.line, tt.contains, problemList(problems))
			}
		})
	}
}

func hasProblem(problems []Problem, file string, line int, contains string) bool {
	for _, p := range problems {
		if p.File == file && (line == 0 || p.Line == line) && strings.Contains(p.Reason, contains) {
			return true
		}
	}
	return false
}

func problemList(problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		b.WriteString("\t" + p.String() + "\n")
	}
	return b.String()
}
