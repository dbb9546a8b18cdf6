package admissionpolicy

import (
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// fixtureSchemas serves three kinds, their schemas in testdata/typecheck:
// apps/v1 Deployment, the e2e specs' CronTab and v1 ConfigMap.
type fixtureSchemas map[schema.GroupVersionResource]schema.GroupVersionKind

var fixtureKinds = fixtureSchemas{
	{Group: "apps", Version: "v1", Resource: "deployments"}:            {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}: {Group: "stable.example.com", Version: "v1", Kind: "CronTab"},
	{Version: "v1", Resource: "configmaps"}:                            {Version: "v1", Kind: "ConfigMap"},
}

func (f fixtureSchemas) Kind(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	gvk, ok := f[gvr]
	return gvk, ok
}

func (f fixtureSchemas) Schema(gvk schema.GroupVersionKind) ([]byte, bool) {
	for gvr, k := range f {
		if k == gvk {
			b, err := os.ReadFile(filepath.Join("testdata", "typecheck", gvr.Resource[:len(gvr.Resource)-1]+".json"))
			return b, err == nil
		}
	}
	return nil, false
}

// TestTypeCheck derives its rows from Kubernetes' e2e specs
// (test/e2e/apimachinery/validatingadmissionpolicy.go) "should type check
// validation expressions" and "should type check a CRD", with rows for
// what those reach through: variables, params, unserved kinds.
func TestTypeCheck(t *testing.T) {
	tests := []struct {
		name string
		spec string // the policy's spec, YAML
		want []v1.ExpressionWarning
	}{
		{name: "should type check validation expressions: correct types", spec: `
matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
validations: [{expression: "object.spec.replicas > 1"}]`},
		{name: "should type check validation expressions: type confusion", spec: `
matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
validations:
- expression: "object.spec.replicas > '1'"
  messageExpression: "'wants replicas > 1, got ' + object.spec.replicas"`,
			want: []v1.ExpressionWarning{
				{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > '1'\n | .....................^\n"},
				{FieldRef: "spec.validations[0].messageExpression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:28: found no matching overload for '_+_' applied to '(string, int)'\n | 'wants replicas > 1, got ' + object.spec.replicas\n | ...........................^\n"},
			}},
		{name: "should type check a CRD: correct types", spec: `
matchConstraints: {resourceRules: [{apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}]}
validations: [{expression: "object.spec.replicas > 1"}]`},
		{name: "should type check a CRD: type confusion and an undefined field", spec: `
matchConstraints: {resourceRules: [{apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}]}
validations: [{expression: "object.spec.replicas > '1'"}, {expression: "object.spec.maxRetries < 10"}]`,
			want: []v1.ExpressionWarning{
				{FieldRef: "spec.validations[0].expression", Warning: "stable.example.com/v1, Kind=CronTab: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > '1'\n | .....................^\n"},
				{FieldRef: "spec.validations[1].expression", Warning: "stable.example.com/v1, Kind=CronTab: ERROR: <input>:1:12: undefined field 'maxRetries'\n | object.spec.maxRetries < 10\n | ...........^\n"},
			}},
		{name: "should allow expressions to refer variables: typed through the variable", spec: `
matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
variables: [{name: replicas, expression: "object.spec.replicas"}]
validations: [{expression: "variables.replicas > 'one'"}]`,
			want: []v1.ExpressionWarning{
				{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:20: found no matching overload for '_>_' applied to '(int, string)'\n | variables.replicas > 'one'\n | ...................^\n"},
			}},
		{name: "params typed by paramKind", spec: `
paramKind: {apiVersion: v1, kind: ConfigMap}
matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
validations: [{expression: "object.spec.replicas <= params.data.max"}]`,
			want: []v1.ExpressionWarning{
				{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_<=_' applied to '(int, string)'\n | object.spec.replicas <= params.data.max\n | .....................^\n"},
			}},
		{name: "a kind not served is not checked", spec: `
matchConstraints: {resourceRules: [{apiGroups: [batch], apiVersions: [v1], operations: [CREATE], resources: [jobs]}]}
validations: [{expression: "object.spec.replicas > '1'"}]`},
		{name: "wildcards are not checked", spec: `
matchConstraints: {resourceRules: [{apiGroups: ["*"], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
validations: [{expression: "object.spec.replicas > '1'"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &v1.ValidatingAdmissionPolicy{}
			if err := yaml.Unmarshal([]byte(tt.spec), &p.Spec); err != nil {
				t.Fatal(err)
			}
			got := TypeCheck(p, fixtureKinds)
			if len(got) != len(tt.want) {
				t.Fatalf("warnings = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("warning %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
