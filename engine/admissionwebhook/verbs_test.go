package admissionwebhook_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

const labs = "/apis/labs.example.com/v1alpha1/namespaces/ns/widgets"

// TestVerbs: every verb and subresource is admitted, with kube's
// operation, subresource, kind and options, over AdmissionReview v1beta1
// when the webhook asks for it.
func TestVerbs(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	h := serveHook(t, allow)
	s := start(t, kit, nil)
	rule := `"sideEffects":"None","rules":[{"operations":["*"],"apiGroups":["shop.example.com","labs.example.com"],"apiVersions":["*"],"resources":["widgets","widgets/status","widgets/scale"]}],`
	cfg := config("ValidatingWebhookConfiguration", "verbs.example.com", urlConfig(h, ""), rule)
	cfg, _ = sjson.Set(cfg, "webhooks.0.admissionReviewVersions", []string{"v1beta1"})
	s.configure(t, cfg, func() bool {
		s.call(t, "POST", widgets+"?dryRun=All", widget("probe", ""))
		return len(h.requests()) > 0
	})
	before := len(h.requests())
	stored := s.must(t, http.StatusCreated, "POST", widgets, widget("v", ""))
	s.must(t, http.StatusOK, "PUT", widgets+"/v", stored)
	s.must(t, http.StatusOK, "PATCH", widgets+"/v", `{"spec":{"size":3}}`, resource.MergePatch)
	s.must(t, http.StatusOK, "PATCH", widgets+"/v?fieldManager=test", "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: v}\nspec: {description: applied}\n", resource.ApplyPatch)
	stored = s.must(t, http.StatusOK, "GET", widgets+"/v", "")
	withStatus, _ := sjson.Set(stored, "status.phase", "Ready")
	s.must(t, http.StatusOK, "PUT", widgets+"/v/status", withStatus)
	s.must(t, http.StatusCreated, "POST", labs, `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"l"},"spec":{"port":80,"replicas":1}}`)
	s.must(t, http.StatusOK, "PUT", labs+"/l/scale", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"l","namespace":"ns"},"spec":{"replicas":2}}`)
	s.must(t, http.StatusOK, "DELETE", widgets+"/v", "")

	want := []string{
		"CREATE widgets  shop.example.com/v1, Kind=Widget CreateOptions",
		"UPDATE widgets  shop.example.com/v1, Kind=Widget UpdateOptions",
		"UPDATE widgets  shop.example.com/v1, Kind=Widget PatchOptions",
		"UPDATE widgets  shop.example.com/v1, Kind=Widget PatchOptions",
		"UPDATE widgets status shop.example.com/v1, Kind=Widget UpdateOptions",
		"CREATE widgets  labs.example.com/v1alpha1, Kind=Widget CreateOptions",
		"UPDATE widgets scale autoscaling/v1, Kind=Scale UpdateOptions",
		"DELETE widgets  shop.example.com/v1, Kind=Widget DeleteOptions",
	}
	var got []string
	wait.Eventually(t, 10*time.Second, func() (bool, string) { return len(h.requests()) >= before+len(want), "the requests" })
	reqs, versions := h.requests(), h.reviewVersions()
	for i, r := range reqs[before:] {
		got = append(got, fmt.Sprintf("%s %s %s %s/%s, Kind=%s %s", r.Operation, r.Resource.Resource, r.SubResource,
			r.Kind.Group, r.Kind.Version, r.Kind.Kind, gjson.GetBytes(r.Options.Raw, "kind").String()))
		if versions[before+i] != "admission.k8s.io/v1beta1" {
			t.Errorf("request %d sent as %s, want admission.k8s.io/v1beta1", i, versions[before+i])
		}
		if r.Operation == "DELETE" && (r.Object.Raw != nil && string(r.Object.Raw) != "null" || !gjson.GetBytes(r.OldObject.Raw, "metadata.name").Exists()) {
			t.Errorf("delete: object %s, oldObject %s", r.Object.Raw, r.OldObject.Raw)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests:\n%q\nwant\n%q", got, want)
	}
}

// TestEveryProcess: a webhook configuration created through one process
// is in force on another serving the same database.
func TestEveryProcess(t *testing.T) {
	kit := servicetest.Open(t, "ns")
	h := serveHook(t, denyAll)
	a, b := start(t, kit, nil), start(t, kit, nil)
	a.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", withProbe(h, h, "elsewhere", `"rules":[],`))
	b.inForce(t, true)
}
