package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The hostile-input suite: requests a careless or malicious client sends.
// Each is refused with a 4xx Status (naming the field where there is
// one), answers within a generous bound (a hang guard, not a benchmark)
// and leaves the object it touches as it was.

const labWidgets = "/apis/labs.example.com/v1alpha1/namespaces/default/widgets"

// labWidget is a labs.example.com Widget, whose spec.config is free-form.
func labWidget(name, config string) string {
	return `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"` + name +
		`"},"spec":{"port":80,"config":` + config + `}}`
}

// hostileCase is one hostile request and the answer it must get.
type hostileCase struct {
	name, method, path, contentType, body string
	code                                  int
	field                                 string // a cause's field, when not ""
	message                               string // the Status's message, when not ""
}

// hangGuard bounds each hostile request's answer time.
const hangGuard = 20 * time.Second

// runHostile sends each case against a server holding the Widget "target"
// and checks the answer, its time and that "target" is unchanged.
func runHostile(t *testing.T, s *testServer, cases []hostileCase) {
	t.Helper()
	before := s.mustDo(http.StatusOK, http.MethodGet, labWidgets+"/target", "", "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := s.do(tc.method, tc.path, tc.contentType, tc.body)
			if took := time.Since(start); took > hangGuard {
				t.Errorf("took %v", took)
			}
			if r.code != tc.code {
				t.Fatalf("code %d, want %d: %.400s", r.code, tc.code, r.body)
			}
			if r.get("kind").String() != "Status" {
				t.Fatalf("not a Status: %.400s", r.body)
			}
			if tc.message != "" && r.get("message").String() != tc.message {
				t.Errorf("message %q, want %q", r.get("message"), tc.message)
			}
			if tc.field != "" && !hasCause(r, tc.field) {
				t.Errorf("no cause on %q: %.600s", tc.field, r.body)
			}
			after := s.mustDo(http.StatusOK, http.MethodGet, labWidgets+"/target", "", "")
			jsoneq.Assert(t, after.body, before.body)
		})
	}
}

func hasCause(r response, field string) bool {
	for _, c := range r.get("details.causes").Array() {
		if c.Get("field").String() == field {
			return true
		}
	}
	return false
}

func TestHostileValuesPostgresCannotStore(t *testing.T) {
	s := newTestServer(t)
	s.create(labWidgets, labWidget("target", `{"a":"b"}`))
	post := func(name, config, field string) hostileCase {
		return hostileCase{name: name, method: http.MethodPost, path: labWidgets, contentType: "application/json",
			body: labWidget("new", config), code: http.StatusUnprocessableEntity, field: field}
	}
	merge := func(name, patch, field string) hostileCase {
		return hostileCase{name: name, method: http.MethodPatch, path: labWidgets + "/target",
			contentType: "application/merge-patch+json", body: patch, code: http.StatusUnprocessableEntity, field: field}
	}
	notFound := func(method, path string) hostileCase {
		return hostileCase{name: method + " " + path, method: method, path: labWidgets + path,
			contentType: "application/json", body: labWidget("target", `{}`), code: http.StatusNotFound}
	}
	runHostile(t, s, []hostileCase{
		post("NUL in a string", `{"x":"a\u0000b"}`, "spec.config.x"),
		post("NUL in a key", `{"k\u0000":1}`, `spec.config.k\u0000`),
		post("200,000 digits", `{"n":`+strings.Repeat("9", 200000)+`}`, "spec.config.n"),
		post("1e1000000", `{"n":1e1000000}`, "spec.config.n"),
		post("1e-1000000", `{"n":[1e-1000000]}`, "spec.config.n[0]"),
		{name: "NUL in an annotation", method: http.MethodPost, path: labWidgets, contentType: "application/json",
			body: `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"new","annotations":{"a":"\u0000"}},"spec":{"port":80}}`,
			code: http.StatusUnprocessableEntity, field: "metadata.annotations.a"},
		merge("merge patch adds NUL", `{"spec":{"config":{"a":"\u0000"}}}`, "spec.config.a"),
		merge("merge patch adds 1e1000000", `{"spec":{"config":{"a":1e1000000}}}`, "spec.config.a"),
		merge("merge patch []", `[]`, "patch"),
		merge("merge patch null", `null`, "patch"),
		merge("merge patch string", `"x"`, "patch"),
		{name: "JSON patch adds NUL", method: http.MethodPatch, path: labWidgets + "/target", contentType: "application/json-patch+json",
			body: `[{"op":"add","path":"/spec/config/b","value":"\u0000"}]`, code: http.StatusUnprocessableEntity, field: "spec.config.b"},
		notFound(http.MethodGet, "/\xff"),
		notFound(http.MethodDelete, "/\xff"),
		notFound(http.MethodPut, "/a%00b"),
		notFound(http.MethodGet, "/a%00b"),
		{name: "field selector not UTF-8", method: http.MethodDelete, path: labWidgets + "?fieldSelector=metadata.name%3D%FF",
			code: http.StatusBadRequest},
		{name: "field selector with NUL", method: http.MethodGet, path: labWidgets + "?fieldSelector=metadata.name%3Da%00",
			code: http.StatusBadRequest},
		{name: "label selector with NUL", method: http.MethodDelete, path: labWidgets + "?labelSelector=a%3D%00",
			code: http.StatusBadRequest},
		{name: "namespace not UTF-8", method: http.MethodPost, path: "/apis/labs.example.com/v1alpha1/namespaces/\xff/widgets",
			contentType: "application/json", body: labWidget("new", `{}`), code: http.StatusNotFound},
	})
}

// TestHostileTextIsReadAsKube: what is not UTF-8, and lone surrogates, are
// read as U+FFFD, as kube-apiserver's decoder reads them, and stored.
func TestHostileTextIsReadAsKube(t *testing.T) {
	s := newTestServer(t)
	for name, config := range map[string]string{
		"lone-surrogate": `{"x":"\ud800"}`,
		"not-utf8":       "{\"x\":\"\xff\"}",
		"not-utf8-key":   "{\"\xff\":\"\ufffd\"}",
	} {
		r := s.create(labWidgets, labWidget(name, config))
		if got := r.get("spec.config.x").String() + r.get("spec.config.\ufffd").String(); got != "\ufffd" {
			t.Errorf("%s: stored %s", name, r.get("spec.config"))
		}
	}
}
