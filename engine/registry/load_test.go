package registry

import (
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadFiles(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		// Two documents and an empty one, with a comment before the first marker.
		"multi.yaml": {Data: []byte("# two kinds\n---\n" +
			thing("kind: Alpha", "plural: alphas") + "---\n# nothing here\n---   # marker with a comment\n" +
			thing("kind: Beta", "plural: betas"))},
		"one.yml": {Data: []byte(thing("kind: Gamma", "plural: gammas"))},
		"sub/dir/delta.json": {Data: []byte(`{"group": "test.example.com", "kind": "Delta", "plural": "deltas",
			"scope": "Cluster", "versions": [{"name": "v1", "storage": true, "schema": {"type": "object"}}]}`)},
		"both.json": {Data: []byte(`{"group": "test.example.com", "kind": "Epsilon", "plural": "epsilons", "scope": "Cluster",
"versions": [{"name": "v1", "storage": true, "schema": {"type": "object"}}]}
---
{"group": "test.example.com", "kind": "Zeta", "plural": "zetas", "scope": "Cluster",
"versions": [{"name": "v1", "storage": true, "schema": {"type": "object"}}]}
`)},
		// Not read: examples, hidden files and folders, other extensions.
		"testdata/broken.yaml":    {Data: []byte("{{{")},
		"sub/testdata/x.json":     {Data: []byte("{{{")},
		".git/config.yaml":        {Data: []byte("{{{")},
		"sub/.#delta.json":        {Data: []byte("{{{")},
		"README.md":               {Data: []byte("{{{")},
		"sub/empty.yaml":          {Data: []byte("# nothing yet\n")},
		"sub/only-markers.yaml":   {Data: []byte("---\n---\n")},
		"sub/dir/also-empty.json": {Data: []byte(" \n")},
	}
	snap, problems := loadFiles(fsys, nil)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	var got []string
	for _, r := range snap.Resources() {
		got = append(got, r.Plural+" "+r.File)
	}
	want := []string{"alphas multi.yaml", "betas multi.yaml", "deltas sub/dir/delta.json",
		"epsilons both.json", "gammas one.yml", "zetas both.json"}
	if !slices.Equal(got, want) {
		t.Errorf("resources:\n got %q\nwant %q", got, want)
	}
}

func TestLoadNeverNil(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fsys     fs.FS
		problems int
	}{
		{name: "empty", fsys: fstest.MapFS{}},
		{name: "missing folder", fsys: os.DirFS("does-not-exist"), problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap, problems := loadFiles(tt.fsys, nil)
			if snap == nil || len(snap.Resources()) != 0 || len(snap.Groups()) != 0 {
				t.Errorf("want an empty snapshot, got %+v", snap)
			}
			if len(problems) != tt.problems {
				t.Errorf("want %d problems, got:\n%s", tt.problems, problemList(problems))
			}
		})
	}
}

// A CRD as projects publish it is translated field by field.
func TestLoadCRD(t *testing.T) {
	t.Parallel()
	const src = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
  labels: {app: crontab}
spec:
  group: stable.example.com
  preserveUnknownFields: false
  conversion: {strategy: None}
  names:
    kind: CronTab
    plural: crontabs
    shortNames: [ct]
    categories: [all, batch]
  scope: Cluster
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema: {openAPIV3Schema: {type: object}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {replicas: {type: integer}, image: {type: string}}}
          status: {type: object, properties: {replicas: {type: integer}, selector: {type: string}}}
    additionalPrinterColumns:
    - {name: Image, type: string, jsonPath: .spec.image, description: The image, priority: 1}
    - {name: Age, type: date, format: date-time, jsonPath: .metadata.creationTimestamp}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    selectableFields:
    - jsonPath: .spec.image
  - name: v1alpha1
    served: false
    storage: false
status:
  acceptedNames: {kind: CronTab, plural: crontabs}
  storedVersions: [v1]
`
	snap, problems := loadFiles(fstest.MapFS{"crontab.yaml": {Data: []byte(src)}}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	r, ok := snap.ResourceByKind("stable.example.com", "CronTab")
	if !ok {
		t.Fatal("CronTab not loaded")
	}
	want := &Resource{
		Group: "stable.example.com", Kind: "CronTab", ListKind: "CronTabList",
		Plural: "crontabs", Singular: "crontab", ShortNames: []string{"ct"}, Categories: []string{"all", "batch"},
		Namespaced: false, StorageVersion: "v1", File: "crontab.yaml",
		Fields: r.Fields, // the scale subresource is served: nothing is Unenforced
		Versions: []*Version{
			{Name: "v1", Served: true, Storage: true, Schema: r.Versions[0].Schema,
				PrinterColumns: []PrinterColumn{
					{Name: "Image", Type: "string", JSONPath: ".spec.image", Description: "The image", Priority: 1},
					{Name: "Age", Type: "date", Format: "date-time", JSONPath: ".metadata.creationTimestamp"},
				},
				Subresources: Subresources{Status: true, Scale: &Scale{
					SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"}},
				SelectableFields: []string{".spec.image"},
			},
			{Name: "v1beta1", Served: true, Deprecated: true, Schema: r.Versions[1].Schema},
			{Name: "v1alpha1"},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
		for i := range r.Versions {
			t.Errorf("version %d: got %+v", i, r.Versions[i])
		}
	}
	if r.Versions[0].Schema == nil || r.Versions[1].Schema == nil {
		t.Error("schemas of served versions were not compiled")
	}
}

// Kubernetes allows a "-" in a CRD's kind; so does dynapi, for CRDs.
func TestLoadCRDKindWithDash(t *testing.T) {
	t.Parallel()
	src := crdDoc("things.test.example.com", "test.example.com", "")
	src = strings.Replace(src, "kind: Thing,", "kind: My-Thing,", 1)
	snap, problems := loadFiles(fstest.MapFS{"thing.yaml": {Data: []byte(src)}}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	if _, ok := snap.ResourceByKind("test.example.com", "My-Thing"); !ok {
		t.Error("My-Thing not loaded")
	}
}

func TestLoadNativeDefaults(t *testing.T) {
	t.Parallel()
	snap, problems := loadFiles(fstest.MapFS{"thing.yaml": {Data: []byte(thing("scope: Cluster"))}}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	r, v, ok := snap.Lookup("test.example.com", "v1", "things")
	if !ok {
		t.Fatal("things not served")
	}
	if r.ListKind != "ThingList" || r.Singular != "thing" || r.Namespaced || !v.Served || v.Subresources.Status {
		t.Errorf("defaults not applied: %+v %+v", r, v)
	}
}

// In a file of several documents, every problem points at a line: a
// definition's own problems at its first line, syntax errors where they are.
func TestLoadProblemLines(t *testing.T) {
	t.Parallel()
	alpha := thing("kind: Alpha", "plural: alphas")
	beta := thing("kind: Beta", "plural: betas", "scope: Global")
	lines := func(s string) int { return strings.Count(s, "\n") }
	src := alpha + "---\n" + beta + "---\nkind: [Gamma\n"
	snap, problems := loadFiles(fstest.MapFS{"many.yaml": {Data: []byte(src)}}, nil)
	want := []Problem{
		{File: "many.yaml", Line: lines(alpha) + 2, Reason: `Beta.test.example.com: scope "Global": must be Namespaced or Cluster`},
		{File: "many.yaml", Line: lines(alpha+beta) + 3, Reason: "invalid YAML: did not find expected ',' or ']'"},
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", problemList(problems), problemList(want))
	}
	if _, ok := snap.ResourceByKind("test.example.com", "Alpha"); !ok {
		t.Error("Alpha did not load")
	}
}

// The example in the package documentation loads as it is.
func TestLoadDocExample(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var example strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//\t"); ok {
			example.WriteString(rest + "\n")
		}
	}
	snap := testSnapshot(t, map[string]string{"doc.yaml": example.String()})
	r, v, ok := snap.Lookup("shop.example.com", "v1", "widgets")
	if !ok || v.Subresources.Scale == nil || len(v.SelectableFields) != 1 || len(r.Versions) != 2 {
		t.Errorf("doc example loaded as %+v %+v", r, v)
	}
}

// loadFiles is Load without the built-in definitions: exactly the files given.
func loadFiles(schemas, conversions fs.FS) (*Snapshot, []Problem) {
	return LoadWith(schemas, conversions, LoadOptions{WithoutBuiltins: true})
}
