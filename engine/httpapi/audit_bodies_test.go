package httpapi_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/kubeproto"
)

// TestAuditBodies: at RequestResponse, a body sent as protobuf (typed
// client-go, kubectl create rolebinding) and an answer in protobuf are
// recorded as JSON, as any other; YAML too; a create's objectRef has the
// name of the object it creates, from the body; RequestReceived has no
// body, as in kube, where the handler records it once decoded.
func TestAuditBodies(t *testing.T) {
	policy, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n"))
	if err != nil {
		t.Fatal(err)
	}
	events := &syncBuffer{}
	s := newTestServerOptions(t, httpapi.Options{Auditor: audit.NewLog(policy, events), Logger: slog.New(slog.DiscardHandler)})
	const configmaps = "/api/v1/namespaces/default/configmaps"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "proto"}, Data: map[string]string{"k": "v"}}
	tests := []struct {
		name, contentType, body, accept string
		wantName                        string
	}{
		{"protobuf", kubeproto.MediaType, encodeProtobuf(t, cm, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}), kubeproto.MediaType, "proto"},
		{"yaml", "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: yaml}\ndata: {k: v}\n", "", "yaml"},
		{"json", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"json"},"data":{"k":"v"}}`, "", "json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var header []string
			if tt.accept != "" {
				header = []string{"Accept", tt.accept}
			}
			r := s.mustDo(http.StatusCreated, http.MethodPost, configmaps, tt.contentType, tt.body, header...)
			id := r.header.Get("Audit-Id")
			ev := auditEvent(t, events, id, "ResponseComplete")
			if ev.Get("objectRef.name").String() != tt.wantName || ev.Get("requestObject.data.k").String() != "v" ||
				ev.Get("requestObject.kind").String() != "ConfigMap" || ev.Get("responseObject.metadata.uid").String() == "" {
				t.Errorf("event: %s", ev.Raw)
			}
			if received := auditEvent(t, events, id, "RequestReceived"); received.Get("requestObject").Exists() || received.Get("objectRef.name").Exists() {
				t.Errorf("RequestReceived records what the handler decodes later: %s", received.Raw)
			}
			if strings.Contains(ev.Raw, "k8s\\u0000") {
				t.Errorf("protobuf bytes in the event: %s", ev.Raw)
			}
		})
	}
}
