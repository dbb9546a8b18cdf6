package admissionpolicy

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
)

// TestReinvocation: a policy with reinvocationPolicy IfNeeded runs again
// when a later one changed the object; one with Never does not (kube's
// reinvocation, through the admission chain's second run).
func TestReinvocation(t *testing.T) {
	copyLabel := `  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"b": has(object.data.b) ? object.data.b : "none"}}}
`
	setB := `  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/data/b", value: "2"}]
`
	tests := []struct {
		policy, want string
	}{
		{"IfNeeded", "2"},
		{"Never", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			copyPolicy := mutatingPolicy("a-copy", "", copyLabel)
			if tt.policy == "IfNeeded" {
				copyPolicy = strings.Replace(copyPolicy, "reinvocationPolicy: Never", "reinvocationPolicy: IfNeeded", 1)
			}
			p := NewPlugins(limits)
			p.Publish(Compile(Objects{}, objectsOf(t, copyPolicy, mutatingPolicy("b-set", "", setB),
				mutatingBinding("a", "a-copy", ""), mutatingBinding("b", "b-set", ""))))
			chain := &admission.Chain{Mutators: []admission.Mutator{p.Mutating()}}
			a := &admission.Attributes{Operation: admission.Create, Kind: engine.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Version: "v1",
				Resource: engine.GroupResource{Resource: "configmaps"}, Name: "c", Namespace: "team",
				Object: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team"},"data":{"a":"1"}}`)}
			if err := chain.Admit(context.Background(), a, &admission.Outcome{}); err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(a.Object, "metadata.labels.b").String(); got != tt.want || gjson.GetBytes(a.Object, "data.b").String() != "2" {
				t.Fatalf("object %s, want label b=%s and data.b=2", a.Object, tt.want)
			}
		})
	}
}
