package registry

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// shipped is the repository's schemas/ folder. Its examples live in
// <group folder>/testdata/<kind in lower case>/<version>/{valid,invalid}/*.json;
// the core group's folder is "core". An invalid example is named after the
// field it breaks, then a dash: "spec.size-too-big.json".
var shipped = os.DirFS("../../schemas")

// builtins is the built-in definitions' folder (package builtin), whose
// examples are laid out as schemas/' are.
var builtins = os.DirFS("../builtin/definitions")

// examplesOf is the folder holding r's examples.
func examplesOf(r *Resource) fs.FS {
	if IsBuiltinFile(r.File) {
		return builtins
	}
	return shipped
}

// shippedConversions is the repository's conversions/ folder.
var shippedConversions = os.DirFS("../../conversions")

func loadShipped(t *testing.T) *Snapshot {
	t.Helper()
	snap, problems := Load(shipped, shippedConversions)
	if len(problems) > 0 {
		t.Fatalf("schemas/ has problems:\n%s", problemList(problems))
	}
	return snap
}

// exampleDir is where a version's examples live.
func exampleDir(r *Resource, version string) string {
	group := r.Group
	if group == "" {
		group = "core"
	}
	return path.Join(group, "testdata", strings.ToLower(r.Kind), version)
}

// Every served version of every shipped resource has examples of both kinds.
func TestShippedSchemasHaveExamples(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	if len(snap.Resources()) == 0 {
		t.Fatal("no resources in schemas/")
	}
	for _, r := range snap.Resources() {
		for _, v := range r.Versions {
			for _, kind := range []string{"valid", "invalid"} {
				dir := path.Join(exampleDir(r, v.Name), kind)
				if files, _ := fs.Glob(examplesOf(r), dir+"/*.json"); v.Served && len(files) == 0 {
					t.Errorf("%s %s: no examples in %s (%s)", r.GroupResource(), v.Name, dir, r.File)
				}
			}
		}
	}
}

func TestShippedExamples(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	for _, root := range []struct {
		name string
		fsys fs.FS
	}{{"schemas", shipped}, {"builtin", builtins}} {
		files, err := fs.Glob(root.fsys, "*/testdata/*/*/*/*.json")
		if err != nil || len(files) == 0 {
			t.Fatalf("no examples found in %s: %v", root.name, err)
		}
		for _, file := range files {
			t.Run(root.name+"/"+file, func(t *testing.T) { checkExample(t, snap, root.fsys, file) })
		}
	}
}

// checkExample checks one example file against its kind's version.
func checkExample(t *testing.T, snap *Snapshot, fsys fs.FS, file string) {
	t.Parallel()
	r, v := exampleVersion(t, snap, file)
	obj, err := fs.ReadFile(fsys, file)
	if err != nil {
		t.Fatal(err)
	}
	checkExampleType(t, obj, r, v)
	switch kind := path.Base(path.Dir(file)); kind {
	case "valid":
		checkValid(t, v, obj)
	case "invalid":
		checkInvalid(t, v, obj, path.Base(file))
	default:
		t.Fatalf("examples go in valid/ or invalid/, not %s/", kind)
	}
}

// exampleVersion finds the resource version an example file is for.
func exampleVersion(t *testing.T, snap *Snapshot, file string) (*Resource, *Version) {
	t.Helper()
	for _, r := range snap.Resources() {
		for _, v := range r.Versions {
			if strings.HasPrefix(file, exampleDir(r, v.Name)+"/") {
				return r, v
			}
		}
	}
	t.Fatalf("no loaded resource version matches the folder of %s", file)
	return nil, nil
}

func checkExampleType(t *testing.T, obj []byte, r *Resource, v *Version) {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(obj, &head); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	want := engine.GroupVersionKind{Group: r.Group, Version: v.Name, Kind: r.Kind}
	if head.APIVersion != want.APIVersion() || head.Kind != want.Kind {
		t.Errorf("example is %s %s, its folder says %s %s", head.APIVersion, head.Kind, want.APIVersion(), want.Kind)
	}
}

// checkValid requires a valid example to pass as written: nothing pruned
// (a misspelt field would otherwise vanish unnoticed), no violation.
func checkValid(t *testing.T, v *Version, obj []byte) {
	t.Helper()
	if _, pruned := v.Schema.Prune(obj); len(pruned) > 0 {
		t.Errorf("fields unknown to the schema: %v", pruned)
	}
	obj, err := v.Schema.Default(obj)
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	if errs := v.Schema.Validate(obj); len(errs) > 0 {
		t.Errorf("valid example fails validation: %+v", errs)
	}
}

// checkInvalid requires a violation at the field the file is named after.
func checkInvalid(t *testing.T, v *Version, obj []byte, name string) {
	t.Helper()
	obj, err := v.Schema.Default(obj)
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	field, _, _ := strings.Cut(name, "-")
	errs := v.Schema.Validate(obj)
	for _, e := range errs {
		if samePlace(field, e.Path) {
			return
		}
	}
	t.Errorf("want a violation at %s, got %+v", field, errs)
}

// samePlace reports whether a violation at path is about field: at it
// (where a missing required field is reported too) or inside it.
func samePlace(field, path string) bool {
	return path == field || strings.HasPrefix(path, field+".") || strings.HasPrefix(path, field+"[")
}
