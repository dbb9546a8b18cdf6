package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
	"github.com/dynapi/dynapi/internal/wait"
)

// sizeLimit is a validating webhook program: it refuses a Widget larger
// than 10 with its own message.
func sizeLimit(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var obj struct {
		Spec struct{ Size int } `json:"spec"`
	}
	_ = json.Unmarshal(review.Request.Object.Raw, &obj)
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: obj.Spec.Size <= 10}
	if !resp.Allowed {
		resp.Result = &metav1.Status{Code: http.StatusForbidden, Message: "widgets are at most size 10"}
	}
	review.Request, review.Response = nil, resp
	_ = json.NewEncoder(w).Encode(review)
}

// TestKubectlAdmissionWebhook: kubectl applies a
// ValidatingWebhookConfiguration, and an object the webhook refuses is
// refused with the webhook's message.
func TestKubectlAdmissionWebhook(t *testing.T) {
	needKubectl(t)
	hook := webhooktest.Serve(t, http.HandlerFunc(sizeLimit))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}

	cfg, err := os.ReadFile("testdata/kubectl/size-limit-webhook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg = []byte(strings.NewReplacer("URL", hook.URL+"/validate", "CABUNDLE", base64.StdEncoding.EncodeToString(hook.CABundle)).Replace(string(cfg)))
	path := filepath.Join(k.home, "webhook.yaml")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := k.run("apply", "-f", path); !strings.Contains(out, "validatingwebhookconfiguration.admissionregistration.k8s.io/size-limit created") {
		t.Fatalf("kubectl apply: %s", out)
	}
	big := "testdata/kubectl/big-widget.yaml"
	var out string
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		out, err = k.exec("apply", "--dry-run=server", "-f", big)
		return err != nil, "the webhook in force: " + out
	})
	out, err = k.exec("apply", "-f", big)
	want := `admission webhook "size-limit.example.com" denied the request: widgets are at most size 10`
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("kubectl apply of a refused widget: err %v, output lacks %q:\n%s", err, want, out)
	}
	if out := k.run("get", "validatingwebhookconfigurations", "size-limit", "-o", "jsonpath={.webhooks[0].failurePolicy}"); out != "Fail" {
		t.Errorf("stored failurePolicy %q, want kube's default Fail", out)
	}
}
