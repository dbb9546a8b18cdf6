package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestBadQueryRefused proves that no verb runs with a query parameter
// dropped: a query string Go cannot parse whole is a 400 before anything
// runs, and the objects are as they were.
func TestBadQueryRefused(t *testing.T) {
	s := newTestServer(t)
	for _, n := range []string{"keep", "del"} {
		s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"`+n+`","labels":{"del":"`+n+`"}},"spec":{"color":"red"}}`)
	}
	before := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "").get("items.#.metadata.resourceVersion").String()
	tooMany := "dryRun=All" + strings.Repeat("&a=b", 10_001)
	queries := []struct{ name, query string }{
		{"semicolon", "labelSelector=del%3Ddel;"},
		{"bad escape", "labelSelector=del%3"},
		{"too many parameters", tooMany},
	}
	verbs := []struct {
		name, method, path, contentType, body string
	}{
		{"deletecollection", http.MethodDelete, widgets, "", ""},
		{"delete", http.MethodDelete, widgets + "/del", "", ""},
		{"create", http.MethodPost, widgets, "application/json", widget("new", `{}`)},
		{"update", http.MethodPut, widgets + "/del", "application/json", widget("del", `{"color":"blue"}`)},
		{"status", http.MethodPut, widgets + "/del/status", "application/json", widget("del", `{}`)},
		{"patch", http.MethodPatch, widgets + "/del", "application/merge-patch+json", `{"spec":{"color":"blue"}}`},
		{"list", http.MethodGet, widgets, "", ""},
	}
	for _, q := range queries {
		for _, v := range verbs {
			t.Run(q.name+"/"+v.name, func(t *testing.T) {
				r := s.do(v.method, v.path+"?"+q.query, v.contentType, v.body)
				wantStatus(t, r, http.StatusBadRequest, "BadRequest")
				if !strings.Contains(r.get("message").String(), "query string") {
					t.Fatalf("message does not name the query string: %s", r)
				}
			})
		}
	}
	after := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "").get("items.#.metadata.resourceVersion").String()
	if after != before {
		t.Fatalf("a refused request changed the objects: resourceVersions %s, were %s", after, before)
	}
}
