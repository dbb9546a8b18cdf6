package admissionwebhook_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

// closedURL is a client config whose URL nothing listens at.
func closedURL(t *testing.T, h *hook) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return strings.Replace(urlConfig(h, ""), h.URL, "https://"+addr, 1)
}

// TestFailurePolicy: a webhook that is down or too slow refuses the write
// with kube's text under failurePolicy Fail, and is passed over (and the
// audit log says so) under Ignore; a denial is a denial under both.
func TestFailurePolicy(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	probe := serveHook(t, denyAll)
	slow := serveHook(t, allow)
	slow.setDelay(5 * time.Second)
	s := start(t, kit, nil)
	down := closedURL(t, probe)
	widgetRule := `"rules":[{"operations":["CREATE"],"apiGroups":["shop.example.com"],"apiVersions":["*"],"resources":["widgets"]}],`
	tests := []struct {
		name, client, fields string
		wantCode             int
		wantText             string
	}{
		{"down, Fail", down, `"failurePolicy":"Fail",`, 500, `Internal error occurred: failed calling webhook \"case0.example.com\": failed to call webhook: Post \"https://`},
		{"down, Ignore", down, `"failurePolicy":"Ignore",`, 201, ""},
		{"slow, Fail", urlConfig(slow, ""), `"failurePolicy":"Fail","timeoutSeconds":1,`, 500, `Internal error occurred: failed calling webhook \"case2.example.com\": failed to call webhook: Post \"https://`},
		{"slow, Ignore", urlConfig(slow, ""), `"failurePolicy":"Ignore","timeoutSeconds":1,`, 201, ""},
		{"denial, Ignore", urlConfig(probe, ""), `"failurePolicy":"Ignore",`, 400, `admission webhook \"case4.example.com\" denied the request: no f4`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("case%d", i)
			cfg := strings.Replace(withProbe(probe, probe, name, widgetRule+tt.fields), urlConfig(probe, ""), tt.client, 1)
			s.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", cfg)
			s.inForce(t, true)
			code, out, _ := s.call(t, "POST", widgets, widget(fmt.Sprintf("f%d", i), ""))
			if code != tt.wantCode || !strings.Contains(out, tt.wantText) {
				t.Errorf("create = %d %s, want %d %s", code, out, tt.wantCode, tt.wantText)
			}
			if tt.wantCode == 201 && !strings.Contains(s.auditLog(), `"failed-open.validating.webhook.admission.k8s.io/round_0_index_0":"`+name+`.example.com"`) {
				t.Errorf("the audit log does not say %s failed open", name)
			}
			s.must(t, http.StatusOK, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"+name, "")
			s.inForce(t, false)
		})
	}
}

// labelPatch answers with a JSON patch setting a label of the object.
func labelPatch(key, value string) *admissionv1.AdmissionResponse {
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, PatchType: &pt,
		Patch: []byte(fmt.Sprintf(`[{"op":"add","path":"/metadata/labels/%s","value":%q}]`, key, value))}
}

// TestReinvocation: a webhook with reinvocationPolicy IfNeeded is called
// again when a later webhook changed the object, and sees the change;
// with Never it is called once.
func TestReinvocation(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	// first labels what it saw of second's label; second adds its label once.
	first := serveHook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return labelPatch("first", "saw-"+gjson.GetBytes(req.Object.Raw, "metadata.labels.second").String()+"none")
	})
	second := serveHook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if gjson.GetBytes(req.Object.Raw, "metadata.labels.second").Exists() {
			return allow(req)
		}
		return labelPatch("second", "x")
	})
	s := start(t, kit, nil)
	mutating := func(name string, h *hook, policy string) string {
		return config("MutatingWebhookConfiguration", name, urlConfig(h, ""), widgetRules+`"reinvocationPolicy":"`+policy+`",`)
	}
	for _, tt := range []struct{ policy, want string }{{"IfNeeded", "saw-xnone"}, {"Never", "saw-none"}} {
		t.Run(tt.policy, func(t *testing.T) {
			s.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", mutating("a-first.example.com", first, tt.policy))
			s.configure(t, mutating("b-second.example.com", second, "Never"), func() bool {
				_, out, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
				return gjson.Get(out, "metadata.labels.second").Exists() && gjson.Get(out, "metadata.labels.first").Exists()
			})
			out := s.must(t, http.StatusCreated, "POST", widgets, widget("r-"+strings.ToLower(tt.policy), ""))
			if got := gjson.Get(out, "metadata.labels.first").String(); got != tt.want {
				t.Errorf("label first = %q, want %q: %s", got, tt.want, out)
			}
			for _, n := range []string{"a-first.example.com", "b-second.example.com"} {
				s.must(t, http.StatusOK, "DELETE", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/"+n, "")
			}
			wait.Eventually(t, 30*time.Second, func() (bool, string) {
				_, out, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
				return !gjson.Get(out, "metadata.labels.second").Exists(), "the webhooks out of force"
			})
		})
	}
}

// TestDryRunSideEffects: a webhook with side effects (which v1 refuses
// now, but an older dynapi stored: written here around the strategy, as
// it was) refuses a dry run with kube's text; one without is called with
// dryRun set.
func TestDryRunSideEffects(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	h := serveHook(t, allow)
	s := start(t, kit, nil)
	rule := `"rules":[{"operations":["CREATE"],"apiGroups":["shop.example.com"],"apiVersions":["v1"],"resources":["widgets"]}],`
	stored := config("ValidatingWebhookConfiguration", "some.example.com", urlConfig(h, ""), `"sideEffects":"Some",`+rule)
	key := engine.ObjectKey{Resource: engine.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}, Name: "some.example.com"}
	if _, err := kit.Store.Create(context.Background(), engine.Object{Key: key, StoredVersion: "v1", Body: []byte(stored)}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		code, _, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
		return code == http.StatusBadRequest, "the webhook configuration in force"
	})
	code, out, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("d", ""))
	if want := `admission webhook \"some.example.com\" does not support dry run`; code != http.StatusBadRequest || !strings.Contains(out, want) {
		t.Errorf("dry run = %d %s, want 400 %s", code, out, want)
	}
	s.must(t, http.StatusCreated, "POST", widgets, widget("real", ""))
	s.must(t, http.StatusOK, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/some.example.com", "")
	calls := len(h.requests())
	s.configure(t, config("ValidatingWebhookConfiguration", "none.example.com", urlConfig(h, ""), `"sideEffects":"NoneOnDryRun",`+rule), func() bool {
		code, _, _ := s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
		return code == http.StatusCreated && len(h.requests()) > calls
	})
	got := h.requests()
	if last := got[len(got)-1]; last.DryRun == nil || !*last.DryRun || gjson.GetBytes(last.Options.Raw, "dryRun.0").String() != "All" {
		t.Errorf("the webhook saw dryRun %v, options %s", *last.DryRun, last.Options.Raw)
	}
}
