package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine/authn"
	rbacauthz "github.com/dynapi/dynapi/engine/authz/rbac"
)

// BenchmarkSecurityChain measures what authentication (a static token)
// and RBAC add to a request, over a policy of 500 namespaces, each with a
// Role and a RoleBinding of its own user, and 50 ClusterRoleBindings; the
// user asking is bound in one namespace, as most are.
//
//	go test -run NONE -bench SecurityChain -benchmem ./engine/httpapi/
func BenchmarkSecurityChain(b *testing.B) {
	const widgets = "/apis/shop.example.com/v1/namespaces/ns-250/widgets"
	var tokens strings.Builder
	var docs [][]byte
	for i := range 500 {
		fmt.Fprintf(&tokens, "token-%d,user-%d,%d,team-%d\n", i, i, i, i%10)
		docs = append(docs, fmt.Appendf(nil, `{"kind":"Role","metadata":{"namespace":"ns-%d","name":"writer"},
			"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]},{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["create","get","list","watch"]}]}`, i),
			fmt.Appendf(nil, `{"kind":"RoleBinding","metadata":{"namespace":"ns-%d","name":"writer"},"roleRef":{"kind":"Role","name":"writer"},
			"subjects":[{"kind":"User","name":"user-%d"},{"kind":"ServiceAccount","name":"robot"}]}`, i, i))
	}
	for i := range 50 {
		docs = append(docs, fmt.Appendf(nil, `{"kind":"ClusterRole","metadata":{"name":"cr-%d"},"rules":[{"apiGroups":["x%d.io"],"resources":["*"],"verbs":["*"]}]}`, i, i),
			fmt.Appendf(nil, `{"kind":"ClusterRoleBinding","metadata":{"name":"cr-%d"},"roleRef":{"kind":"ClusterRole","name":"cr-%d"},
			"subjects":[{"kind":"Group","name":"team-%d"}]}`, i, i, i%10))
	}
	tf, err := authn.ParseTokens(strings.NewReader(tokens.String()))
	if err != nil {
		b.Fatal(err)
	}
	index, err := rbacauthz.Static(docs...)
	if err != nil {
		b.Fatal(err)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	open := &Server{logger: slog.New(slog.DiscardHandler)}
	secured := &Server{logger: open.logger, authn: authn.Union{tf}, authz: index}
	open.metrics = newRequestMetrics(prometheus.NewRegistry())
	secured.metrics = open.metrics
	chain := func(s *Server) http.Handler {
		return withRequestInfo(s.instrument(s.authenticate(s.authorize(handler))))
	}
	chains := []struct {
		name string
		h    http.Handler
	}{{"open", chain(open)}, {"token+rbac", chain(secured)}}
	requests := []struct {
		name, method, target string
		code                 int
	}{
		{"create", http.MethodPost, widgets, http.StatusOK},
		{"get", http.MethodGet, widgets + "/w1", http.StatusOK},
		{"list", http.MethodGet, widgets + "?limit=500", http.StatusOK},
		{"forbidden", http.MethodDelete, widgets + "/w1", http.StatusForbidden},
	}
	for _, rq := range requests {
		for _, c := range chains {
			b.Run(rq.name+"/"+c.name, func(b *testing.B) {
				r := httptest.NewRequest(rq.method, rq.target, nil)
				w := &codeWriter{discardWriter: discardWriter{header: http.Header{}}}
				b.ReportAllocs()
				for b.Loop() {
					r.Header.Set("Authorization", "Bearer token-250")
					c.h.ServeHTTP(w, r)
				}
				if c.name != "open" && w.code != rq.code {
					b.Fatalf("code %d, want %d", w.code, rq.code)
				}
			})
		}
	}
}

// codeWriter keeps the status code.
type codeWriter struct {
	discardWriter
	code int
}

func (w *codeWriter) WriteHeader(code int) { w.code = code }
func (w *codeWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return len(b), nil
}
