package admissionpolicy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission"
	"sigs.k8s.io/yaml"
)

// The policies of the table: one kind each, bound below per row.
const (
	replicasPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-keys}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  variables:
  - {name: keys, expression: "has(object.data) ? size(object.data) : 0"}
  validations:
  - expression: "variables.keys <= 2"
    messageExpression: "'too many keys: ' + string(variables.keys)"
  auditAnnotations:
  - {key: keys, valueExpression: "string(variables.keys)"}
`
	paramPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: param-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data) || size(object.data) <= int(params.data.max)"
    message: over the limit
    reason: Forbidden
`
	conditionPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: labelled}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}
  matchConditions:
  - {name: not-ann, expression: "request.userInfo.username != 'ann'"}
  validations:
  - expression: "false"
    message: never
`
	namespacePolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ns-env}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {env: prod}}
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "namespaceObject.metadata.name == 'team' && request.name != 'x'"
    message: not x in prod
`
	brokenPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  failurePolicy: %s
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.nope +"
`
	authzPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: authz}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [configmaps]}
  validations:
  - expression: "authorizer.group('').resource('configmaps').namespace('team').check('delete').allowed() && oldObject.metadata.name != 'keep'"
    message: kept
`
)

func binding(name, policy, actions, extra string) string {
	return `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ` + name + `}
spec:
  policyName: ` + policy + `
  validationActions: ` + actions + `
` + extra
}

const (
	threeKeys = "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: team}, data: {a: '1', b: '2', c: '3'}}"
	oneKey    = "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: team}, data: {a: '1'}}"
	keptMap   = "{apiVersion: v1, kind: ConfigMap, metadata: {name: keep, namespace: team}}"
	xMap      = "{apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: team}}"
)

var limits = memoryStore{
	namespaces: map[string]map[string]string{"team": {"env": "prod"}},
	params: []*unstructured.Unstructured{
		mustObject("{apiVersion: v1, kind: ConfigMap, metadata: {name: limit, namespace: team, labels: {use: limit}}, data: {max: '2'}}"),
		mustObject("{apiVersion: v1, kind: ConfigMap, metadata: {name: strict, namespace: other, labels: {use: limit}}, data: {max: '0'}}"),
	},
}

// TestValidate runs policies and bindings over requests as kube's
// ValidatingAdmissionPolicy plug-in would, with kube's texts. The cases
// follow test/e2e/apimachinery/validatingadmissionpolicy.go where it has
// one (validation actions, params, variables, match conditions).
func TestValidate(t *testing.T) {
	tests := []struct {
		name        string
		docs        []string
		op          admission.Operation
		obj, old    string
		wantErr     string
		wantCode    int32
		warnings    []string
		annotations map[string]string
	}{
		{name: "deny with messageExpression", docs: []string{replicasPolicy, binding("b", "max-keys", "[Deny]", "")},
			op: admission.Create, obj: threeKeys, wantCode: 422,
			wantErr:     `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'b' denied request: too many keys: 3`,
			annotations: map[string]string{"max-keys/keys": "3"}},
		{name: "admitted, audit annotation kept", docs: []string{replicasPolicy, binding("b", "max-keys", "[Deny]", "")},
			op: admission.Create, obj: oneKey, annotations: map[string]string{"max-keys/keys": "1"}},
		{name: "warn", docs: []string{replicasPolicy, binding("b", "max-keys", "[Warn]", "")},
			op: admission.Create, obj: threeKeys,
			warnings:    []string{"Validation failed for ValidatingAdmissionPolicy 'max-keys' with binding 'b': too many keys: 3"},
			annotations: map[string]string{"max-keys/keys": "3"}},
		{name: "audit", docs: []string{replicasPolicy, binding("b", "max-keys", "[Audit]", "")},
			op: admission.Create, obj: threeKeys,
			annotations: map[string]string{"max-keys/keys": "3",
				failureAnnotation: `[{"message":"too many keys: 3","policy":"max-keys","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]`}},
		{name: "warn and audit", docs: []string{replicasPolicy, binding("b", "max-keys", "[Warn, Audit]", "")},
			op: admission.Create, obj: threeKeys,
			warnings: []string{"Validation failed for ValidatingAdmissionPolicy 'max-keys' with binding 'b': too many keys: 3"},
			annotations: map[string]string{"max-keys/keys": "3",
				failureAnnotation: `[{"message":"too many keys: 3","policy":"max-keys","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]`}},
		{name: "no binding, no effect", docs: []string{replicasPolicy}, op: admission.Create, obj: threeKeys},
		{name: "operation not matched", docs: []string{replicasPolicy, binding("b", "max-keys", "[Deny]", "")},
			op: admission.Delete, old: threeKeys},
		{name: "param by name, reason Forbidden", docs: []string{paramPolicy, binding("b", "param-limit", "[Deny]", "  paramRef: {name: limit, parameterNotFoundAction: Deny}\n")},
			op: admission.Create, obj: threeKeys, wantCode: 403,
			wantErr: `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'param-limit' with binding 'b' denied request: over the limit`},
		{name: "param by name, within", docs: []string{paramPolicy, binding("b", "param-limit", "[Deny]", "  paramRef: {name: limit, parameterNotFoundAction: Deny}\n")},
			op: admission.Create, obj: oneKey},
		{name: "param missing, Deny", docs: []string{paramPolicy, binding("b", "param-limit", "[Deny]", "  paramRef: {name: none, parameterNotFoundAction: Deny}\n")},
			op: admission.Create, obj: oneKey, wantCode: 422,
			wantErr: "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'param-limit' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "param missing, Allow", docs: []string{paramPolicy, binding("b", "param-limit", "[Deny]", "  paramRef: {name: none, parameterNotFoundAction: Allow}\n")},
			op: admission.Create, obj: threeKeys},
		{name: "params by selector in another namespace", docs: []string{paramPolicy, binding("b", "param-limit", "[Deny]", "  paramRef: {namespace: other, selector: {matchLabels: {use: limit}}, parameterNotFoundAction: Deny}\n")},
			op: admission.Create, obj: oneKey, wantCode: 403,
			wantErr: `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'param-limit' with binding 'b' denied request: over the limit`},
		{name: "match condition excludes the user", docs: []string{conditionPolicy, binding("b", "labelled", "[Deny]", "")},
			op: admission.Create, obj: oneKey},
		{name: "namespace selector and namespaceObject", docs: []string{namespacePolicy, binding("b", "ns-env", "[Deny]", "")},
			op: admission.Create, obj: xMap, wantCode: 422,
			wantErr: `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'ns-env' with binding 'b' denied request: not x in prod`},
		{name: "binding's own match resources exclude", docs: []string{namespacePolicy, binding("b", "ns-env", "[Deny]", "  matchResources: {excludeResourceRules: [{apiGroups: [''], apiVersions: [v1], operations: ['*'], resources: [configmaps], resourceNames: [x]}]}\n")},
			op: admission.Create, obj: xMap},
		{name: "compile error, Fail", docs: []string{fmt.Sprintf(brokenPolicy, "Fail"), binding("b", "broken", "[Deny]", "")},
			op: admission.Create, obj: oneKey, wantCode: 422,
			wantErr: `ValidatingAdmissionPolicy 'broken' with binding 'b' denied request: compilation error: compilation failed: ERROR: <input>:1:14: Syntax error: mismatched input '<EOF>'`},
		{name: "compile error, Ignore", docs: []string{fmt.Sprintf(brokenPolicy, "Ignore"), binding("b", "broken", "[Deny]", "")},
			op: admission.Create, obj: oneKey},
		{name: "authorizer and oldObject on delete", docs: []string{authzPolicy, binding("b", "authz", "[Deny]", "")},
			op: admission.Delete, old: keptMap, wantCode: 422,
			wantErr: `configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'b' denied request: kept`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compile(Objects{}, objectsOf(t, tt.docs...))
			a := configMapRequest(tt.op, objectOf(t, tt.obj), objectOf(t, tt.old))
			res, err := s.Validate(context.Background(), a, limits)
			checkDenial(t, err, tt.wantErr, tt.wantCode)
			if !slices.Equal(res.Warnings, tt.warnings) {
				t.Errorf("warnings %q, want %q", res.Warnings, tt.warnings)
			}
			if tt.wantErr == "" && !maps.Equal(res.Annotations, tt.annotations) {
				t.Errorf("annotations %q, want %q", res.Annotations, tt.annotations)
			}
		})
	}
}

// checkDenial checks that err is kube's denial beginning with want, with
// code, or nil when want is empty.
func checkDenial(t *testing.T, err error, want string, code int32) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("denied: %v", err)
		}
		return
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want a denial %q", err, want)
	}
	if !strings.Contains(se.ErrStatus.Message, want) || se.ErrStatus.Code != code {
		t.Fatalf("denial %d %q, want %d %q", se.ErrStatus.Code, se.ErrStatus.Message, code, want)
	}
}

func mustObject(doc string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		panic(err)
	}
	return u
}
