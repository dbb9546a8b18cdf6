package admissionpolicy

import (
	"context"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
)

// benchConfigMap is a ConfigMap of about 1.2 KB, the size of the
// objects of the figures in the README.
var benchConfigMap = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team","labels":{"app":"bench"}},"data":{"a":"` +
	strings.Repeat("x", 1100) + `","b":"2"}}`)

// BenchmarkValidatingPolicyWrite measures what the ValidatingAdmissionPolicy
// plug-in adds to one write, as the pipeline's stage calls it: nothing
// configured (Active alone), and one policy with one CEL rule that
// matches (the attributes decoded from the write's bytes, matched,
// evaluated).
func BenchmarkValidatingPolicyWrite(b *testing.B) {
	cases := []struct {
		name string
		docs []string
	}{
		{"none", nil},
		{"one-policy-one-rule", []string{`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-keys}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "size(object.data) <= 3"
`, binding("b", "max-keys", "[Deny]", "")}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := NewPlugins(limits)
			p.Publish(Compile(Objects{}, objectsOf(b, c.docs...)))
			v := p.Validating()
			ctx := context.Background()
			b.SetBytes(int64(len(benchConfigMap)))
			for b.Loop() {
				if !v.Active() {
					continue
				}
				a := &admission.Attributes{Operation: admission.Create, Kind: engine.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Version: "v1",
					Resource: engine.GroupResource{Resource: "configmaps"}, Name: "c", Namespace: "team", Object: benchConfigMap}
				if err := v.Validate(ctx, a, &admission.Outcome{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
