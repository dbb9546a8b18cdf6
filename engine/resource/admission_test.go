package resource_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// plugin is a mutating and validating plug-in whose behaviour a test sets,
// recording the attributes it was called with.
type plugin struct {
	active   bool
	mutate   func(a *admission.Attributes) error
	validate func(a *admission.Attributes) error
	mutated  []admission.Attributes
	checked  []admission.Attributes
}

func (p *plugin) Active() bool { return p.active }

func (p *plugin) Admit(_ context.Context, a *admission.Attributes, out *admission.Outcome) error {
	p.mutated = append(p.mutated, *a)
	out.Warn("mutator looked")
	if p.mutate == nil {
		return nil
	}
	return p.mutate(a)
}

func (p *plugin) Validate(_ context.Context, a *admission.Attributes, out *admission.Outcome) error {
	p.checked = append(p.checked, *a)
	out.Warn("validator looked")
	if p.validate == nil {
		return nil
	}
	return p.validate(a)
}

// sizeSeven sets spec.size to 7 (a Scale's spec.replicas to 3).
func sizeSeven(a *admission.Attributes) error {
	if a.Object == nil { // a delete
		return nil
	}
	path, value := "spec.size", 7
	if a.Subresource == resource.ScaleSubresource {
		path, value = "spec.replicas", 3
	}
	obj, err := sjson.SetBytes(a.Object, path, value)
	a.SetObject(obj)
	return err
}

var errRefused = engine.Errorf(engine.CodeForbidden, "refused by the test")

// TestAdmissionStages: every verb runs the mutating plug-ins on the object
// as sent and the validating ones on the object as stored (defaulted, its
// metadata filled), with kube's attributes; a refusal ends the write; a
// dry run is admitted but not stored; no active plug-in, no call.
func TestAdmissionStages(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	ctx := context.Background()
	widgets := target(t, kit, "shop.example.com", "v1", "widgets")
	labs := target(t, kit, "labs.example.com", "v1alpha1", "widgets")
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"NAME","namespace":"ns"},"spec":{}}`
	create := func(name string, opts resource.WriteOptions) (resource.Result, error) {
		b, _ := sjson.Set(body, "metadata.name", name)
		return kit.Service.Create(ctx, widgets, []byte(b), opts)
	}
	if _, err := create("w", resource.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	crBody := `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"s","namespace":"ns"},"spec":{"replicas":1,"port":80}}`
	if _, err := kit.Service.Create(ctx, labs, []byte(crBody), resource.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		op      admission.Operation
		sub     string
		write   func() (resource.Result, error)
		refuse  bool
		wantObj string // a gjson path and value the stored object must have
	}{
		{"create", admission.Create, "", func() (resource.Result, error) { return create("c", resource.WriteOptions{}) }, false, "spec.size"},
		{"create refused", admission.Create, "", func() (resource.Result, error) { return create("r", resource.WriteOptions{}) }, true, ""},
		{"dry run", admission.Create, "", func() (resource.Result, error) { return create("d", resource.WriteOptions{DryRun: true}) }, false, ""},
		{"update", admission.Update, "", func() (resource.Result, error) {
			old, _ := kit.Service.Get(ctx, widgets, "w")
			return kit.Service.Update(ctx, widgets, "w", old, resource.WriteOptions{})
		}, false, "spec.size"},
		{"patch", admission.Update, "", func() (resource.Result, error) {
			return kit.Service.Patch(ctx, widgets, "w", resource.MergePatch, []byte(`{"spec":{"tags":["a"]}}`), resource.WriteOptions{})
		}, false, "spec.size"},
		{"status", admission.Update, "status", func() (resource.Result, error) {
			old, _ := kit.Service.Get(ctx, widgets, "w")
			st := widgets
			st.Subresource = "status"
			return kit.Service.Update(ctx, st, "w", old, resource.WriteOptions{})
		}, false, ""},
		{"scale", admission.Update, "scale", func() (resource.Result, error) {
			sc := labs
			sc.Subresource = resource.ScaleSubresource
			return kit.Service.UpdateScale(ctx, sc, "s", []byte(`{"kind":"Scale","spec":{"replicas":2}}`), resource.WriteOptions{})
		}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plugin{active: true, mutate: sizeSeven}
			if tt.refuse {
				p.validate = func(*admission.Attributes) error { return errRefused }
			}
			kit.Service.SetAdmission(&admission.Chain{Mutators: []admission.Mutator{p}, Validators: []admission.Validator{p}})
			res, err := tt.write()
			if tt.refuse {
				if !errors.Is(err, errRefused) {
					t.Fatalf("err = %v, want the validator's refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.mutated) != 1 || len(p.checked) != 1 {
				t.Fatalf("mutated %d times, validated %d times; want once each", len(p.mutated), len(p.checked))
			}
			m, v := p.mutated[0], p.checked[0]
			if m.Operation != tt.op || v.Operation != tt.op || m.Subresource != tt.sub {
				t.Errorf("operation %s/%s subresource %q, want %s %q", m.Operation, v.Operation, m.Subresource, tt.op, tt.sub)
			}
			if tt.op == admission.Create && gjson.GetBytes(m.Object, "metadata.uid").Exists() {
				t.Errorf("the mutator saw the server's metadata: %s", m.Object)
			}
			if tt.sub != resource.ScaleSubresource {
				if got := gjson.GetBytes(v.Object, "spec.size").Int(); got != 7 && tt.sub == "" {
					t.Errorf("the validator saw spec.size %d, want the mutator's 7: %s", got, v.Object)
				}
				if got := gjson.GetBytes(v.Object, "spec.color").String(); got != "red" {
					t.Errorf("the validator saw spec.color %q, want the schema's default: %s", got, v.Object)
				}
			} else if got := gjson.GetBytes(res.Object, "spec.replicas").Int(); got != 3 {
				t.Errorf("scale written %d replicas, want the mutator's 3: %s", got, res.Object)
			}
			if m.DryRun != (tt.name == "dry run") || gjson.GetBytes(m.Options, "dryRun.0").String() != map[bool]string{true: "All"}[m.DryRun] {
				t.Errorf("dryRun %v, options %s", m.DryRun, m.Options)
			}
			if len(res.Warnings) != 2 {
				t.Errorf("warnings %q, want the mutator's and the validator's", res.Warnings)
			}
			if tt.wantObj != "" && gjson.GetBytes(res.Object, tt.wantObj).Int() != 7 {
				t.Errorf("written %s, want %s 7", res.Object, tt.wantObj)
			}
		})
	}
	t.Run("delete", func(t *testing.T) {
		p := &plugin{active: true, validate: func(a *admission.Attributes) error {
			if a.Object != nil || gjson.GetBytes(a.OldObject, "metadata.name").String() != "w" {
				t.Errorf("delete attributes: object %s, old %s", a.Object, a.OldObject)
			}
			return errRefused
		}}
		kit.Service.SetAdmission(&admission.Chain{Validators: []admission.Validator{p}})
		if _, err := kit.Service.Delete(ctx, widgets, "w", resource.DeleteOptions{}); !errors.Is(err, errRefused) {
			t.Fatalf("err = %v, want the validator's refusal", err)
		}
		if _, err := kit.Service.Get(ctx, widgets, "w"); err != nil {
			t.Fatalf("refused delete deleted: %v", err)
		}
	})
	t.Run("inactive", func(t *testing.T) {
		p := &plugin{active: false, validate: func(*admission.Attributes) error { return errRefused }}
		kit.Service.SetAdmission(&admission.Chain{Mutators: []admission.Mutator{p}, Validators: []admission.Validator{p}})
		if _, err := create("i", resource.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(p.mutated)+len(p.checked) > 0 {
			t.Fatal("an inactive plug-in was called")
		}
	})
}

func target(t testing.TB, kit servicetest.Kit, group, version, res string) resource.Target {
	t.Helper()
	r, v, ok := kit.Snapshot.Lookup(group, version, res)
	if !ok {
		t.Fatalf("%s/%s %s not served", group, version, res)
	}
	return resource.Target{Resource: r, Version: v, Namespace: "ns"}
}
