package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/httpapi"
)

// verbAuthorizer allows creates and the resource requests of one verb.
type verbAuthorizer struct{ allow string }

func (a verbAuthorizer) Authorize(_ context.Context, attrs authz.Attributes) (authz.Decision, string, error) {
	if !attrs.ResourceRequest || attrs.Verb == a.allow || attrs.Verb == "create" {
		return authz.DecisionAllow, "", nil
	}
	return authz.DecisionNoOpinion, "", nil
}

// TestWatchIsDecidedOnce: whether a request is a watch is read once, from
// the decoded query, so that it is authorized as what it is served as. An
// escaped parameter name is still a watch, and so are an empty and an
// unusual value (as kube's query conversion reads a bool): a user allowed
// only to list cannot open a live watch through any spelling, and a user
// allowed only to watch gets a watch, never a list.
func TestWatchIsDecidedOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allow, query string
		want         int
	}{
		{"list", "?%77atch=1", http.StatusForbidden},
		{"list", "?watch=", http.StatusForbidden},
		{"list", "?watch=f", http.StatusForbidden},
		{"list", "?watch=false", http.StatusOK},
		{"watch", "?%77atch=1&timeoutSeconds=1", http.StatusOK},
		{"watch", "?watch=&timeoutSeconds=1", http.StatusOK},
		{"watch", "?watch=f&timeoutSeconds=1", http.StatusOK},
		{"watch", "?watch=0", http.StatusForbidden},
	}
	servers := map[string]*testServer{}
	for _, verb := range []string{"list", "watch"} {
		s := newTestServerOptions(t, httpapi.Options{Authorizer: verbAuthorizer{allow: verb}})
		s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}}`)
		servers[verb] = s
	}
	for _, tt := range tests {
		t.Run(tt.allow+tt.query, func(t *testing.T) {
			r := servers[tt.allow].do("GET", widgets+tt.query, "", "")
			if r.code != tt.want {
				t.Fatalf("GET %s allowed to %s: %d, want %d: %s", tt.query, tt.allow, r.code, tt.want, r)
			}
			if r.code != http.StatusOK {
				return
			}
			// Served as authorized: a watch streams events, a list is a WidgetList.
			watched := strings.Contains(string(r.body), `"type":"ADDED"`)
			if listed := r.get("kind").String() == "WidgetList"; watched == listed || watched != (tt.allow == "watch") {
				t.Errorf("GET %s allowed to %s was served as a %s: %s", tt.query, tt.allow, map[bool]string{true: "watch", false: "list"}[watched], r)
			}
		})
	}
}
