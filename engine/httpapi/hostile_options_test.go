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

// TestHostileTimeouts: a timeoutSeconds that is not an int64 is refused on
// every request with ListOptions, and a timeout that is not a Go duration
// on every request but a watch, with kube-apiserver's messages.
func TestHostileTimeouts(t *testing.T) {
	s := newTestServer(t)
	s.create(labWidgets, labWidget("target", `{}`))
	bad := func(method, path, message string) hostileCase {
		return hostileCase{name: method + " " + path, method: method, path: path, code: http.StatusBadRequest, message: message}
	}
	seconds := func(v string) string { return `strconv.ParseInt: parsing "` + v + `": invalid syntax` }
	duration := func(err string) string { return "invalid timeout specified in the request URL - time: " + err }
	runHostile(t, s, []hostileCase{
		bad(http.MethodGet, labWidgets+"?timeoutSeconds=1e10", seconds("1e10")),
		bad(http.MethodGet, labWidgets+"?timeoutSeconds=1.5", seconds("1.5")),
		bad(http.MethodGet, labWidgets+"?timeoutSeconds=", seconds("")),
		bad(http.MethodGet, labWidgets+"?timeoutSeconds=99999999999999999999",
			`strconv.ParseInt: parsing "99999999999999999999": value out of range`),
		bad(http.MethodGet, labWidgets+"?watch=true&timeoutSeconds=1e10", seconds("1e10")),
		bad(http.MethodDelete, labWidgets+"?timeoutSeconds=1e10", seconds("1e10")),
		bad(http.MethodGet, labWidgets+"?timeout=bogus", duration(`invalid duration "bogus"`)),
		bad(http.MethodGet, labWidgets+"?timeout=10", duration(`missing unit in duration "10"`)),
		bad(http.MethodGet, labWidgets+"/target?timeout=1e10s", duration(`unknown unit "e" in duration "1e10s"`)),
		bad(http.MethodDelete, labWidgets+"/target?timeout=bogus", duration(`invalid duration "bogus"`)),
		bad(http.MethodDelete, labWidgets+"?timeout=bogus", duration(`invalid duration "bogus"`)),
	})
}

// TestTimeoutParameters: what kube-apiserver accepts of timeoutSeconds and
// timeout. A list ignores timeoutSeconds, even negative; a timeout bounds
// a request when shorter than the server's; a watch ignores timeout, and
// timeoutSeconds=0 is the server's timeout, not none at all.
func TestTimeoutParameters(t *testing.T) {
	s := newTestServer(t)
	s.create(labWidgets, labWidget("target", `{}`))
	for _, path := range []string{"?timeoutSeconds=5", "?timeoutSeconds=-1", "?timeout=30s", "?timeout=0s", "?timeout=-1s", "/target?timeout=1h"} {
		s.mustDo(http.StatusOK, http.MethodGet, labWidgets+path, "", "")
	}
	w := s.watch(labWidgets + "?watch=true&timeoutSeconds=0&timeout=bogus")
	w.expect("ADDED", "target")
	w.quiet()
	s.create(labWidgets, labWidget("after", `{}`))
	w.expect("ADDED", "after")
	wantStatus(t, s.do(http.MethodGet, labWidgets+"?timeout=1ns", "", ""), http.StatusGatewayTimeout, "Timeout")
}
