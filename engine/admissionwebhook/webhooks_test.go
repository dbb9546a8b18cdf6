package admissionwebhook_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

const widgets = "/apis/shop.example.com/v1/namespaces/ns/widgets"

// widget is a Widget named name with spec.
func widget(name, spec string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","labels":{"app":"w"}},"spec":{` + spec + `}}`
}

// defaultSize is a mutating webhook program: a Widget without spec.size
// gets 5, and a warning and an audit annotation say so.
func defaultSize(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if gjson.GetBytes(req.Object.Raw, "spec.size").Exists() {
		return allow(req)
	}
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, PatchType: &pt, Patch: []byte(`[{"op":"add","path":"/spec/size","value":5}]`),
		Warnings: []string{"spec.size defaulted to 5"}, AuditAnnotations: map[string]string{"defaulted": "spec.size"}}
}

// refuseForbidden is a validating webhook program: it refuses a Widget
// whose description is "forbidden", and records the size it saw.
func refuseForbidden(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if gjson.GetBytes(req.Object.Raw, "spec.description").String() != "forbidden" {
		return allow(req)
	}
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: http.StatusForbidden, Message: "description is forbidden"},
		AuditAnnotations: map[string]string{"refused": "description"}}
}

// config renders a webhook configuration of kind with one webhook: name,
// its client config, and the rest of its fields (JSON members, ending
// with a comma, or "").
func config(kind, name, clientConfig, fields string) string {
	return fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":%q,"metadata":{"name":%q},
"webhooks":[{"name":%q,"admissionReviewVersions":["v1"],%s"clientConfig":%s}]}`, kind, name, name, fields, clientConfig)
}

// urlConfig is a client config calling h by URL.
func urlConfig(h *hook, path string) string {
	return fmt.Sprintf(`{"url":%q,"caBundle":%q}`, h.URL+path, base64.StdEncoding.EncodeToString(h.CABundle))
}

const widgetRules = `"sideEffects":"None","rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["shop.example.com"],"apiVersions":["v1"],"resources":["widgets"]}],`

// TestDefaultAndRefuse: a mutating webhook reached through a service
// reference sets a default, a validating one reached by URL refuses, with
// kube's text; the validating one sees the mutated object; warnings reach
// the client and audit annotations the audit log.
func TestDefaultAndRefuse(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	mutate := serveHook(t, defaultSize, "size.hooks.svc")
	validate := serveHook(t, refuseForbidden)
	s := start(t, kit, map[string]string{"hooks/size": mutate.Addr})

	svc := fmt.Sprintf(`{"service":{"namespace":"hooks","name":"size","path":"/mutate"},"caBundle":%q}`, base64.StdEncoding.EncodeToString(mutate.CABundle))
	s.configure(t, config("MutatingWebhookConfiguration", "size.example.com", svc, widgetRules), func() bool {
		_, out, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
		return gjson.Get(out, "spec.size").Int() == 5
	})
	s.configure(t, config("ValidatingWebhookConfiguration", "deny.example.com", urlConfig(validate, "/validate"), widgetRules), func() bool {
		code, _, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", `"description":"forbidden"`))
		return code == http.StatusForbidden
	})

	code, out, warnings := s.call(t, "POST", widgets, widget("a", `"color":"blue"`))
	if code != http.StatusCreated || gjson.Get(out, "spec.size").Int() != 5 {
		t.Fatalf("create = %d %s, want 201 with spec.size 5", code, out)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "spec.size defaulted to 5") {
		t.Errorf("warnings %q, want the webhook's", warnings)
	}
	got := validate.requests()
	if last := got[len(got)-1]; gjson.GetBytes(last.Object.Raw, "spec.size").Int() != 5 || last.Operation != admissionv1.Create {
		t.Errorf("the validating webhook saw %s %s, want the mutated object", last.Operation, last.Object.Raw)
	}

	code, out, _ = s.call(t, "POST", widgets, widget("b", `"description":"forbidden"`))
	want := `admission webhook \"deny.example.com\" denied the request: description is forbidden`
	if code != http.StatusForbidden || !strings.Contains(out, want) {
		t.Fatalf("refused create = %d %s, want 403 %s", code, out, want)
	}
	s.must(t, http.StatusNotFound, "GET", widgets+"/b", "")
	log := s.auditLog()
	for _, a := range []string{`"size.example.com/defaulted":"spec.size"`, `"deny.example.com/refused":"description"`, `"mutation.webhook.admission.k8s.io/round_0_index_0"`} {
		if !strings.Contains(log, a) {
			t.Errorf("audit log lacks %s", a)
		}
	}
}
