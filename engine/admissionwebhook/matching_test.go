package admissionwebhook_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

// denyAll refuses every request it is sent.
func denyAll(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "no " + req.Name}}
}

// probeConfigMap is what the probe webhook of a configuration refuses:
// the configuration is in force once it is refused.
const probeConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"}}`

// withProbe is a ValidatingWebhookConfiguration named name with the
// webhook under test (name, fields, calling h) and a probe webhook
// calling probe.
func withProbe(probe, h *hook, name, fields string) string {
	return fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":%q},
"webhooks":[{"name":"%s.example.com","admissionReviewVersions":["v1"],"sideEffects":"None",%s"clientConfig":%s},
{"name":"probe.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","clientConfig":%s,
 "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]}]}`,
		name, name, fields, urlConfig(h, ""), urlConfig(probe, ""))
}

// inForce waits until the probe of the configurations is refused
// (refused true) or admitted.
func (s *server) inForce(t *testing.T, refused bool) {
	t.Helper()
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		code, _, _ := s.call(t, "POST", "/api/v1/namespaces/ns/configmaps?dryRun=All", probeConfigMap)
		return (code == http.StatusBadRequest) == refused, fmt.Sprintf("probe answered %d", code)
	})
}

// rules is a webhook's rules and the fields after them.
func rules(ops, groups, versions, resources, more string) string {
	return fmt.Sprintf(`"rules":[{"operations":[%s],"apiGroups":[%s],"apiVersions":[%s],"resources":[%s]%s}],`, ops, groups, versions, resources, more)
}

// TestMatching: every field that decides whether a webhook is called,
// against a webhook that refuses all it is sent.
func TestMatching(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	h := serveHook(t, denyAll)
	s := start(t, kit, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","labels":{"team":"a"}}}`)
	s.must(t, http.StatusCreated, "POST", "/apis/shop.example.com/v1/namespaces/team-a/widgets", widget("w", ""))
	stored := s.must(t, http.StatusCreated, "POST", widgets, widget("st", ""))
	status, _ := sjson.Set(stored, "status.phase", "Ready")

	create := func(name, spec string) [3]string { return [3]string{"POST", widgets, widget(name, spec)} }
	all := `"CREATE","UPDATE","DELETE"`
	tests := []struct {
		name    string
		fields  string
		request [3]string
		refused bool
	}{
		{"operation other", rules(`"DELETE"`, `"*"`, `"*"`, `"*"`, ""), create("op1", ""), false},
		{"operation", rules(`"CREATE"`, `"*"`, `"*"`, `"*"`, ""), create("op2", ""), true},
		{"operation wildcard", rules(`"*"`, `"shop.example.com"`, `"v1"`, `"widgets"`, ""), create("op3", ""), true},
		{"group other", rules(all, `"other.example.com"`, `"*"`, `"*"`, ""), create("g1", ""), false},
		{"version other, Exact", rules(all, `"*"`, `"v1beta1"`, `"*"`, "") + `"matchPolicy":"Exact",`, create("v1", ""), false},
		{"version other, Equivalent", rules(all, `"*"`, `"v1beta1"`, `"*"`, "") + `"matchPolicy":"Equivalent",`, create("v2", ""), true},
		{"resource other", rules(all, `"*"`, `"*"`, `"gadgets"`, ""), create("r1", ""), false},
		{"subresource on the object", rules(all, `"*"`, `"*"`, `"widgets/status"`, ""), create("r2", ""), false},
		{"subresource", rules(all, `"*"`, `"*"`, `"widgets/status"`, ""), [3]string{"PUT", widgets + "/st/status", status}, true},
		{"any resource's status", rules(all, `"*"`, `"*"`, `"*/status"`, ""), [3]string{"PUT", widgets + "/st/status", status}, true},
		{"status not the object", rules(all, `"*"`, `"*"`, `"widgets"`, ""), [3]string{"PUT", widgets + "/st/status", status}, false},
		{"scope Cluster", rules(all, `"*"`, `"*"`, `"*"`, `,"scope":"Cluster"`), create("sc1", ""), false},
		{"scope Namespaced", rules(all, `"*"`, `"*"`, `"*"`, `,"scope":"Namespaced"`), create("sc2", ""), true},
		{"namespaceSelector other", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"namespaceSelector":{"matchLabels":{"team":"a"}},`, create("ns1", ""), false},
		{"namespaceSelector", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"namespaceSelector":{"matchLabels":{"team":"a"}},`,
			[3]string{"POST", "/apis/shop.example.com/v1/namespaces/team-a/widgets", widget("ns2", "")}, true},
		{"objectSelector other", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"objectSelector":{"matchLabels":{"app":"x"}},`, create("os1", ""), false},
		{"objectSelector", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"objectSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["w"]}]},`, create("os2", ""), true},
		{"matchConditions false", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"matchConditions":[{"name":"blue","expression":"object.spec.color == 'blue'"}],`, create("mc1", `"color":"red"`), false},
		{"matchConditions", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"matchConditions":[{"name":"blue","expression":"object.spec.color == 'blue' && request.operation == 'CREATE'"}],`, create("mc2", `"color":"blue"`), true},
		// kube binds `authorizer` (the server's; here every request is
		// allowed): unbound, the condition fails, and the request with it.
		{"matchConditions with authorizer", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"matchConditions":[{"name":"may","expression":"authorizer.requestResource.check('create').allowed() && authorizer.group('').resource('secrets').namespace('ns').check('list').allowed()"}],`, create("mc3", ""), true},
		{"matchConditions with authorizer false", rules(all, `"*"`, `"*"`, `"widgets"`, "") + `"matchConditions":[{"name":"may-not","expression":"!authorizer.requestResource.check('create').allowed()"}],`, create("mc4", ""), false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("case%d", i)
			s.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", withProbe(h, h, name, tt.fields))
			s.inForce(t, true)
			code, out, _ := s.call(t, tt.request[0], tt.request[1], tt.request[2])
			refused := strings.Contains(out, `admission webhook \"`+name+`.example.com\" denied the request`)
			if refused != tt.refused || !refused && code >= 300 {
				t.Errorf("%s %s = %d %s; want refused %v", tt.request[0], tt.request[1], code, out, tt.refused)
			}
			s.must(t, http.StatusOK, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"+name, "")
			s.inForce(t, false)
		})
	}
	// matchPolicy Equivalent sends the object in the rule's version.
	for _, req := range h.requests() {
		if req.Name == "v2" && (req.Kind.Version != "v1beta1" || gjson.GetBytes(req.Object.Raw, "apiVersion").String() != "shop.example.com/v1beta1" || req.RequestKind.Version != "v1") {
			t.Errorf("Equivalent request: kind %v, requestKind %v, object %s", req.Kind, req.RequestKind, req.Object.Raw)
		}
	}
}

// anonymousWriter lets requests without credentials write what
// TestMatchConditionsAuthorizer writes, and nothing of Secrets.
const anonymousWriter = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: writer}
rules:
- apiGroups: ["", shop.example.com, admissionregistration.k8s.io]
  resources: [configmaps, widgets, validatingwebhookconfigurations]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: writer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: writer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:unauthenticated"}
`

// TestMatchConditionsAuthorizer: a matchCondition's authorizer answers
// as RBAC does for the requesting user: a webhook whose condition asks
// for what the user may do is called, one that asks for what it may not
// is not.
func TestMatchConditionsAuthorizer(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	h := serveHook(t, denyAll)
	s := startWith(t, kit, nil, &controlplane.RBAC{Policy: []byte(anonymousWriter)})
	tests := []struct {
		name, expression string
		refused          bool
	}{
		{"allowed", "authorizer.requestResource.check('create').allowed()", true},
		{"denied", "authorizer.group('').resource('secrets').namespace('ns').check('list').allowed()", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("authz%d", i)
			fields := rules(`"CREATE"`, `"*"`, `"*"`, `"widgets"`, "") + fmt.Sprintf(`"matchConditions":[{"name":"may","expression":%q}],`, tt.expression)
			s.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", withProbe(h, h, name, fields))
			s.inForce(t, true)
			code, out, _ := s.call(t, "POST", widgets, widget(name, ""))
			refused := strings.Contains(out, `admission webhook \"`+name+`.example.com\" denied the request`)
			if refused != tt.refused || !refused && code != http.StatusCreated {
				t.Errorf("create = %d %s; want refused %v", code, out, tt.refused)
			}
			s.must(t, http.StatusOK, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"+name, "")
			s.inForce(t, false)
		})
	}
}
