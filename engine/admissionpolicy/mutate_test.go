package admissionpolicy

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apiserver/pkg/admission"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func mutatingPolicy(name, extra, mutations string) string {
	return `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ` + name + `}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  reinvocationPolicy: Never
` + extra + `  mutations:
` + mutations
}

func mutatingBinding(name, policy, extra string) string {
	return `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ` + name + `}
spec:
  policyName: ` + policy + `
` + extra
}

const (
	applyLabel = `  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "blue"}}}
`
	jsonPatchKey = `  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/data/added", value: "yes"}]
`
	paramKey = `  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{data: {"limit": params.data.max}}
`
	brokenPatch = `  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/data/x', value: object.nope +}]"
`
)

// TestMutate: both mutation types, params, match conditions and
// failurePolicy, with the object kube would store. The cases follow
// test/e2e/apimachinery/mutatingadmissionpolicy.go.
func TestMutate(t *testing.T) {
	tests := []struct {
		name    string
		docs    []string
		want    string // the object after mutation; "" for unchanged
		wantErr string
	}{
		{name: "ApplyConfiguration", docs: []string{mutatingPolicy("label", "", applyLabel), mutatingBinding("b", "label", "")},
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team","labels":{"team":"blue"}},"data":{"a":"1"}}`},
		{name: "JSONPatch", docs: []string{mutatingPolicy("key", "", jsonPatchKey), mutatingBinding("b", "key", "")},
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team"},"data":{"a":"1","added":"yes"}}`},
		{name: "both, in name order", docs: []string{mutatingPolicy("label", "", applyLabel), mutatingPolicy("key", "", jsonPatchKey),
			mutatingBinding("b1", "label", ""), mutatingBinding("b2", "key", "")},
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team","labels":{"team":"blue"}},"data":{"a":"1","added":"yes"}}`},
		{name: "params", docs: []string{mutatingPolicy("limit", "  paramKind: {apiVersion: v1, kind: ConfigMap}\n", paramKey),
			mutatingBinding("b", "limit", "  paramRef: {name: limit, parameterNotFoundAction: Deny}\n")},
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team"},"data":{"a":"1","limit":"2"}}`},
		{name: "match condition false", docs: []string{mutatingPolicy("label", "  matchConditions: [{name: never, expression: 'false'}]\n", applyLabel), mutatingBinding("b", "label", "")}},
		{name: "no binding", docs: []string{mutatingPolicy("label", "", applyLabel)}},
		{name: "compile error, Fail", docs: []string{mutatingPolicy("broken", "", brokenPatch), mutatingBinding("b", "broken", "")},
			wantErr: "policy 'broken' with binding 'b' denied request: compilation failed: ERROR: <input>:1:60: Syntax error: mismatched input '}' expecting"},
		{name: "compile error, Ignore", docs: []string{mutatingPolicy("broken", "  failurePolicy: Ignore\n", brokenPatch), mutatingBinding("b", "broken", "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compile(Objects{}, objectsOf(t, tt.docs...))
			a := configMapRequest(admission.Create, objectOf(t, oneKey), nil)
			obj, err := s.Mutate(context.Background(), a, limits)
			checkDenial(t, err, tt.wantErr, 403)
			if tt.want == "" {
				if obj != nil {
					t.Fatalf("mutated to %v", obj)
				}
				return
			}
			if obj == nil {
				t.Fatal("not mutated")
			}
			got, _ := json.Marshal(obj)
			if !jsoneq.Equal(got, []byte(tt.want)) {
				t.Fatalf("mutated to %s\nwant %s", got, tt.want)
			}
		})
	}
}
