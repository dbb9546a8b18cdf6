package httpapi_test

import (
	"net/http"
	"testing"
)

// TestHostileDeleteOptions: DeleteOptions are validated as kube-apiserver
// validates them, and a refused delete deletes nothing.
func TestHostileDeleteOptions(t *testing.T) {
	s := newTestServer(t)
	s.create(labWidgets, labWidget("target", `{}`))
	del := func(name, query, body string, code int, field string) hostileCase {
		return hostileCase{name: name, method: http.MethodDelete, path: labWidgets + "/target" + query,
			contentType: "application/json", body: body, code: code, field: field}
	}
	collection := del("collection, propagationPolicy Bogus", "", "", http.StatusUnprocessableEntity, "propagationPolicy")
	collection.path = labWidgets + "?propagationPolicy=Bogus"
	runHostile(t, s, []hostileCase{
		del("kind Pod", "", `{"kind":"Pod","apiVersion":"v1"}`, http.StatusBadRequest, ""),
		del("propagationPolicy Bogus", "", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Bogus"}`,
			http.StatusUnprocessableEntity, "propagationPolicy"),
		del("propagationPolicy Bogus in the query", "?propagationPolicy=Bogus", "", http.StatusUnprocessableEntity, "propagationPolicy"),
		del("orphanDependents with propagationPolicy", "?orphanDependents=true", `{"propagationPolicy":"Orphan"}`,
			http.StatusUnprocessableEntity, "propagationPolicy"),
		del("dryRun Bogus", "", `{"dryRun":["Bogus"]}`, http.StatusBadRequest, ""),
		collection,
	})
	r := s.do(http.MethodDelete, labWidgets+"/target?propagationPolicy=Foreground", "application/json",
		`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Background"}`)
	if r.code != http.StatusOK {
		t.Fatalf("a valid DeleteOptions: %d %s", r.code, r.body)
	}
}

// TestHostileWatchTimeoutOverflow: a timeoutSeconds that overflows a
// time.Duration keeps the watch open rather than ending it at once.
func TestHostileWatchTimeoutOverflow(t *testing.T) {
	s := newTestServer(t)
	w := s.watch(labWidgets + "?watch=true&timeoutSeconds=9223372036854775807")
	w.quiet()
	s.create(labWidgets, labWidget("after", `{}`))
	w.expect("ADDED", "after")
}
