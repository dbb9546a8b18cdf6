package kubeproto

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestToJSONKubectl decodes what the real kubectl sends for
// `kubectl create namespace`. The capture server answers every request with
// junk, so kubectl's own failure is expected and ignored; a missing kubectl
// fails the test, because a green run must mean kubectl's body was decoded.
func TestToJSONKubectl(t *testing.T) {
	t.Parallel()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("this test runs the real kubectl: %v", err)
	}
	type request struct {
		contentType string
		body        []byte
	}
	// Buffered so that the handler never blocks if kubectl retries.
	captured := make(chan request, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces" {
			body, _ := io.ReadAll(r.Body)
			select {
			case captured <- request{r.Header.Get("Content-Type"), body}:
			default:
			}
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, kubectl, "--server="+srv.URL, "--cache-dir="+filepath.Join(dir, "cache"),
		"create", "namespace", "demo")
	cmd.Env = append(cmd.Environ(), "KUBECONFIG="+filepath.Join(dir, "missing"))
	out, _ := cmd.CombinedOutput()

	var req request
	select {
	case req = <-captured:
	default:
		t.Fatalf("kubectl sent no POST /api/v1/namespaces; its output:\n%s", out)
	}
	if req.contentType != MediaType {
		t.Errorf("kubectl sent Content-Type %q, want %q", req.contentType, MediaType)
	}
	got, err := ToJSON(req.body)
	if err != nil {
		t.Fatalf("ToJSON(%q): %v", req.body, err)
	}
	jsoneq.Assert(t, got, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"},"spec":{},"status":{}}`)
}
