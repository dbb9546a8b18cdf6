package resource

import (
	"context"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// recordingStore lists its objects whatever the selectors, recording the
// options it was given: the filter after conversion must do the rest.
type recordingStore struct {
	engine.Store // nil: any other method panics
	objects      []engine.Object
	got          *engine.ListOptions
}

func (s recordingStore) List(_ context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	*s.got = opts
	for _, o := range s.objects {
		if o.Key.Resource != opts.Resource {
			continue
		}
		if err := each(o); err != nil {
			return engine.ListMeta{}, err
		}
	}
	return engine.ListMeta{}, nil
}

// shippedTarget loads the shipped definitions, gives the kind's versions
// the selectable fields in fields (version → paths), and returns its target
// in version.
func shippedTarget(t *testing.T, group, kind, version string, fields map[string][]string) Target {
	t.Helper()
	r, _ := shipped(t).ResourceByKind(group, kind)
	for name, paths := range fields {
		v, _ := r.Version(name)
		v.SelectableFields = paths // a snapshot of the test's own
	}
	v, _ := r.Version(version)
	return Target{Resource: r, Version: v, Namespace: "default"}
}

// TestBodyFields checks which selectable fields go to the store as body
// fields: all of a kind without rules; of a kind with rules, those at the
// same path in the storage version that no rule touches, for objects stored
// in the storage version only.
func TestBodyFields(t *testing.T) {
	pipeFields := map[string][]string{"v2": {".spec.material"}, "v1": {".spec.material"}, "v3": {".spec.material", ".spec.insulation"}}
	req := func(path, value string) engine.FieldRequirement {
		return engine.FieldRequirement{Path: path, Operator: engine.OpEquals, Value: value}
	}
	tests := []struct {
		name        string
		target      Target
		field       engine.FieldRequirement
		wantBody    bool
		wantVersion string
	}{
		{"kind without rules", shippedTarget(t, "shop.example.com", "Widget", "v1", nil), req("spec.color", "red"), true, ""},
		{"older version of a kind without rules", shippedTarget(t, "shop.example.com", "Widget", "v1beta1", nil), req("spec.color", "red"), true, ""},
		{"untouched by rules", shippedTarget(t, "plumbing.example.com", "Pipe", "v3", pipeFields), req("spec.material", "Steel"), true, "v2"},
		{"storage version", shippedTarget(t, "plumbing.example.com", "Pipe", "v2", pipeFields), req("spec.material", "Steel"), true, "v2"},
		{"a rule maps it", shippedTarget(t, "plumbing.example.com", "Pipe", "v1", pipeFields), req("spec.material", "steel"), false, ""},
		{"not selectable in storage", shippedTarget(t, "plumbing.example.com", "Pipe", "v3", pipeFields), req("spec.insulation", "Foam"), false, ""},
		{"metadata", shippedTarget(t, "plumbing.example.com", "Pipe", "v3", pipeFields), req("metadata.name", "a"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got engine.ListOptions
			s := New(recordingStore{got: &got})
			opts := engine.ListOptions{Fields: []engine.FieldRequirement{tt.field}}
			if _, err := s.List(context.Background(), tt.target, opts, func([]byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if (len(got.BodyFields) > 0) != tt.wantBody || got.BodyFieldsVersion != tt.wantVersion {
				t.Errorf("store got body fields %v in version %q; want %v in %q", got.BodyFields, got.BodyFieldsVersion, tt.wantBody, tt.wantVersion)
			}
			if tt.wantBody && !slices.Equal(got.BodyFields, []engine.FieldRequirement{tt.field}) {
				t.Errorf("body fields %v; want %v", got.BodyFields, tt.field)
			}
		})
	}
}

// TestBodyFieldsOlderStoredVersion checks that an object stored in an older
// version, which the store lets through, is filtered after conversion.
func TestBodyFieldsOlderStoredVersion(t *testing.T) {
	target := shippedTarget(t, "plumbing.example.com", "Pipe", "v3",
		map[string][]string{"v2": {".spec.material"}, "v3": {".spec.material"}})
	pipe := func(name, version, spec string) engine.Object {
		return engine.Object{Key: engine.ObjectKey{Resource: target.GroupResource(), Namespace: "default", Name: name}, StoredVersion: version,
			Body: []byte(`{"apiVersion":"plumbing.example.com/` + version + `","kind":"Pipe","metadata":{"name":"` + name + `","namespace":"default"},"spec":` + spec + `}`)}
	}
	var got engine.ListOptions
	s := New(recordingStore{got: &got, objects: []engine.Object{
		pipe("old-steel", "v1", `{"diameter":50,"material":"steel"}`),
		pipe("old-copper", "v1", `{"diameter":50,"material":"copper"}`),
		pipe("new-steel", "v2", `{"size":{"diameter":50},"material":"Steel"}`),
	}})
	var names []string
	opts := engine.ListOptions{Fields: []engine.FieldRequirement{{Path: "spec.material", Operator: engine.OpEquals, Value: "Steel"}}}
	_, err := s.List(context.Background(), target, opts, func(obj []byte) error {
		names = append(names, gjson.GetBytes(obj, "metadata.name").String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"old-steel", "new-steel"}; !slices.Equal(names, want) || got.BodyFieldsVersion != "v2" {
		t.Errorf("listed %q with body fields version %q; want %q, v2", names, got.BodyFieldsVersion, want)
	}
}
