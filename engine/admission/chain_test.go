package admission

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynapi/dynapi/engine"
)

// step is a Mutator whose behaviour a test sets.
type step struct {
	name  string
	calls *[]string
	admit func(a *Attributes) error
}

func (s step) Active() bool { return s.admit != nil }

func (s step) Admit(_ context.Context, a *Attributes, _ *Outcome) error {
	*s.calls = append(*s.calls, s.name)
	return s.admit(a)
}

// TestChainReinvocation: the mutating chain runs a second time only when
// a plug-in asks for it, and an inactive plug-in never runs.
func TestChainReinvocation(t *testing.T) {
	tests := []struct {
		name string
		ask  bool
		want []string
	}{
		{"no second run", false, []string{"a", "b"}},
		{"second run asked", true, []string{"a", "b", "a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			ask := func(a *Attributes) error {
				if tt.ask && !a.Reinvocation().IsReinvoke() {
					a.Reinvocation().SetShouldReinvoke()
				}
				return nil
			}
			c := &Chain{Mutators: []Mutator{step{"a", &calls, ask}, step{"off", &calls, nil}, step{"b", &calls, func(*Attributes) error { return nil }}}}
			if !c.Mutating() || c.Validating() {
				t.Fatalf("Mutating %v, Validating %v", c.Mutating(), c.Validating())
			}
			if err := c.Admit(context.Background(), &Attributes{}, &Outcome{}); err != nil {
				t.Fatal(err)
			}
			if len(calls) != len(tt.want) {
				t.Fatalf("calls %v, want %v", calls, tt.want)
			}
			for i := range calls {
				if calls[i] != tt.want[i] {
					t.Fatalf("calls %v, want %v", calls, tt.want)
				}
			}
		})
	}
}

// TestKube: kube's attributes carry the decoded objects, and a new object
// set by a plug-in is decoded again.
func TestKube(t *testing.T) {
	a := &Attributes{Operation: Update, Kind: engine.GroupVersionKind{Group: "g", Version: "v1", Kind: "K"},
		Resource: engine.GroupResource{Group: "g", Resource: "ks"}, Name: "n",
		Object: []byte(`{"spec":{"a":1}}`), OldObject: []byte(`{"spec":{"a":0}}`), User: &engine.User{Name: "ann"}}
	k, err := a.Kube()
	if err != nil {
		t.Fatal(err)
	}
	if k.GetResource().Resource != "ks" || k.GetResource().Version != "v1" || k.GetUserInfo().GetName() != "ann" || k.GetOperation() != "UPDATE" {
		t.Fatalf("attributes %+v", k)
	}
	if v, _, _ := unstructured.NestedInt64(k.GetObject().(*unstructured.Unstructured).Object, "spec", "a"); v != 1 {
		t.Fatalf("object %v", k.GetObject())
	}
	a.SetObject([]byte(`{"spec":{"a":2}}`))
	k, _ = a.Kube()
	if v, _, _ := unstructured.NestedInt64(k.GetObject().(*unstructured.Unstructured).Object, "spec", "a"); v != 2 {
		t.Fatalf("object after SetObject %v", k.GetObject())
	}
	if err := k.AddAnnotation("policy/key", "value"); err != nil || a.KubeAnnotations()["policy/key"] != "value" {
		t.Fatalf("annotations %v (%v)", a.KubeAnnotations(), err)
	}
	k.GetReinvocationContext().SetShouldReinvoke()
	if !a.Reinvocation().ShouldReinvoke() {
		t.Fatal("kube's reinvocation context is not the attributes'")
	}
}
