package reload

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// listStore is a Lister of a fixed list of objects.
type listStore struct {
	objects []engine.Object
}

func (s listStore) List(_ context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	for _, o := range s.objects {
		if o.Key.Resource == opts.Resource {
			if err := each(o); err != nil {
				return engine.ListMeta{}, err
			}
		}
	}
	return engine.ListMeta{}, nil
}

// gizmo loads a definition of Gizmo whose v1 spec has the given properties.
func gizmo(t *testing.T, props string) *registry.Resource {
	t.Helper()
	def := `{"group": "test.example.com", "kind": "Gizmo", "plural": "gizmos", "scope": "Namespaced",
		"versions": [{"name": "v1", "storage": true, "schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": ` + props + `}}}}]}`
	snap, problems := registry.Load(fstest.MapFS{"gizmo.json": {Data: []byte(def)}}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	r, _ := snap.ResourceByKind("test.example.com", "Gizmo")
	return r
}

func TestCheckSchemaChange(t *testing.T) {
	prev := gizmo(t, `{"size": {"type": "integer"}, "color": {"type": "string"}}`)
	gr := prev.GroupResource()
	stored := func(name, spec string) engine.Object {
		return engine.Object{Key: engine.ObjectKey{Resource: gr, Namespace: "default", Name: name}, StoredVersion: "v1",
			Body: []byte(`{"apiVersion":"test.example.com/v1","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":` + spec + `}`)}
	}
	s := StoredObjects{Now: time.Now, Store: listStore{objects: []engine.Object{
		stored("a", `{"size": 1, "color": "red"}`),
		stored("b", `{"size": 12, "color": "blue"}`),
		stored("c", `{"size": 20}`),
	}}}
	tests := []struct {
		name                     string
		next                     *registry.Resource
		objects, invalid, pruned int
		example                  string
	}{
		{"unchanged", prev, 0, 0, 0, ""},
		{"stricter", gizmo(t, `{"size": {"type": "integer", "maximum": 10}, "color": {"type": "string"}}`), 3, 2, 0,
			"default/b (v1): spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10"},
		{"field removed", gizmo(t, `{"size": {"type": "integer"}}`), 3, 0, 2,
			"default/a (v1): spec.color: would be dropped: the schema no longer has it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.Check(context.Background(), prev, tt.next)
			if err != nil {
				t.Fatal(err)
			}
			if c.Objects != tt.objects || c.Invalid != tt.invalid || c.Pruned != tt.pruned {
				t.Errorf("check = %+v", c)
			}
			if tt.example != "" && (len(c.Examples) == 0 || c.Examples[0].String() != tt.example) {
				t.Errorf("examples %v, want first %q", c.Examples, tt.example)
			}
			if c.Breaks() != (tt.invalid+tt.pruned > 0) {
				t.Errorf("Breaks() = %v", c.Breaks())
			}
			summary := fmt.Sprintf("%d of %d stored objects would fail validation, %d would lose fields by pruning", tt.invalid, tt.objects, tt.pruned)
			if !strings.HasPrefix(c.String(), summary) || !strings.Contains(c.String(), tt.example) {
				t.Errorf("String() = %s", c)
			}
		})
	}
}
