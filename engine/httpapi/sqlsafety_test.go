package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
)

// Every value a client sends reaches PostgreSQL as a bound parameter:
// names, namespaces, label and field selectors, continue tokens and
// resourceVersions full of quotes and semicolons are refused or matched
// as data, never run; nothing answers 5xx and the data stays whole.
func TestHostileValuesAreData(t *testing.T) {
	s := newTestServer(t)
	const hostile = `x'; DROP TABLE objects; --`
	const quoted = `it's "quoted"; DELETE FROM objects; $$ \'`
	s.create(shopWidgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"safe",
		"annotations":{"note":"`+jsonEscape(quoted)+`"},"labels":{"app":"web"}},"spec":{"color":"red","size":1}}`)
	q := url.QueryEscape
	paths := []string{
		shopWidgets + "/" + url.PathEscape(hostile),
		"/apis/shop.example.com/v1/namespaces/" + url.PathEscape(hostile) + "/widgets",
		"/api/v1/namespaces/" + url.PathEscape(hostile),
		shopWidgets + "?fieldSelector=" + q("metadata.name="+hostile),
		shopWidgets + "?fieldSelector=" + q("metadata.namespace!="+hostile),
		shopWidgets + "?fieldSelector=" + q("spec.color="+hostile),
		shopWidgets + "?labelSelector=" + q("app="+hostile),
		shopWidgets + "?labelSelector=" + q(hostile+"=web"),
		shopWidgets + "?labelSelector=" + q("app in (web,"+hostile+")"),
		shopWidgets + "?labelSelector=" + q("app>1'; --"),
		shopWidgets + "?limit=1&continue=" + q(hostile),
		shopWidgets + "?limit=1&continue=" + q("eyJydiI6IjEnOyBEUk9QIFRBQkxFIG9iamVjdHM7LS0ifQ=="), // {"rv":"1'; DROP TABLE objects;--"}
		shopWidgets + "?resourceVersion=" + q(hostile),
		shopWidgets + "?resourceVersion=" + q("1; DROP TABLE objects") + "&resourceVersionMatch=Exact",
		shopWidgets + "?watch=true&timeoutSeconds=1&resourceVersion=" + q(hostile),
		shopWidgets + "/safe?resourceVersion=" + q(hostile),
	}
	for _, p := range paths {
		if r := s.do(http.MethodGet, p, "", ""); r.code >= 500 {
			t.Errorf("GET %s: %d %s", p, r.code, r)
		}
	}
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		if r := s.do(method, shopWidgets+"/"+url.PathEscape(hostile), "application/json", `{}`); r.code >= 500 {
			t.Errorf("%s hostile name: %d %s", method, r.code, r)
		}
	}
	r := s.mustDo(http.StatusOK, http.MethodGet, shopWidgets+"/safe", "", "")
	if r.get("metadata.annotations.note").String() != quoted {
		t.Fatalf("annotation read back: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodGet, shopWidgets, "", "")
	if n := len(r.get("items").Array()); n != 1 {
		t.Fatalf("list after hostile requests: %d items: %s", n, r)
	}
}

func jsonEscape(s string) string {
	out := ""
	for _, c := range s {
		switch c {
		case '"', '\\':
			out += `\` + string(c)
		default:
			out += string(c)
		}
	}
	return out
}
