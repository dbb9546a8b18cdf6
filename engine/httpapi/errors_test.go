package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestWriteErrors(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("exists", `{}`))
	tests := []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                string
		fields                                []string // Status causes, in order
	}{
		{"already exists", "POST", widgets, "application/json", widget("exists", `{}`), 409, "AlreadyExists", nil},
		{"schema violations, all reported", "POST", widgets, "application/json",
			widget("bad", `{"size":"big","color":"pink","description":"`+strings.Repeat("x", 201)+`"}`), 422, "Invalid",
			[]string{"spec.color", "spec.description", "spec.size"}},
		{"bad name", "POST", widgets, "application/json", widget("Not_A_Name", `{}`), 422, "Invalid", []string{"metadata.name"}},
		{"no name", "POST", widgets, "application/json", `{"apiVersion":"shop.example.com/v1","kind":"Widget","spec":{}}`, 422, "Invalid", []string{"metadata.name"}},
		{"bad label", "POST", widgets, "application/json",
			`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"l","labels":{"a b":"c"}},"spec":{}}`, 422, "Invalid", []string{"metadata.labels"}},
		{"required field", "POST", "/apis/shop.example.com/v1/warehouses", "application/json",
			`{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"w"},"spec":{}}`, 422, "Invalid", []string{"spec.location"}},
		{"wrong apiVersion", "POST", widgets, "application/json", `{"apiVersion":"shop.example.com/v2","kind":"Widget","metadata":{"name":"x"}}`, 400, "BadRequest", nil},
		{"wrong kind", "POST", widgets, "application/json", `{"apiVersion":"shop.example.com/v1","kind":"Gadget","metadata":{"name":"x"}}`, 400, "BadRequest", nil},
		{"missing kind", "POST", widgets, "application/json", `{"apiVersion":"shop.example.com/v1","metadata":{"name":"x"}}`, 400, "BadRequest", nil},
		{"namespace mismatch", "POST", widgets, "application/json",
			`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"x","namespace":"other"}}`, 400, "BadRequest", nil},
		{"malformed JSON", "POST", widgets, "application/json", `{"apiVersion":`, 400, "BadRequest", nil},
		{"malformed YAML", "POST", widgets, "application/yaml", "a: [b", 400, "BadRequest", nil},
		{"not an object", "POST", widgets, "application/json", `[1,2]`, 400, "BadRequest", nil},
		{"unsupported body type", "POST", widgets, "text/plain", `hello`, 415, "UnsupportedMediaType", nil},
		{"resourceVersion on create", "POST", widgets, "application/json",
			`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"x","resourceVersion":"5"}}`, 400, "BadRequest", nil},
		{"strict unknown field", "POST", widgets + "?fieldValidation=Strict", "application/json", widget("s", `{"bogus":1}`), 400, "BadRequest", nil},
		{"bad fieldValidation", "POST", widgets + "?fieldValidation=Loose", "application/json", widget("s", `{}`), 400, "BadRequest", nil},
		{"bad dryRun", "POST", widgets + "?dryRun=Some", "application/json", widget("s", `{}`), 400, "BadRequest", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, tt.contentType, tt.body)
			wantStatus(t, r, tt.code, tt.reason)
			var fields []string
			for _, f := range r.get("details.causes.#.field").Array() {
				fields = append(fields, f.String())
			}
			if strings.Join(fields, ",") != strings.Join(tt.fields, ",") {
				t.Fatalf("cause fields = %v, want %v: %s", fields, tt.fields, r)
			}
			for _, c := range r.get("details.causes").Array() {
				if c.Get("message").String() == "" || c.Get("reason").String() == "" {
					t.Errorf("cause without message or reason: %s", c.Raw)
				}
			}
		})
	}
}

func TestBodyTooLarge(t *testing.T) {
	s := newTestServer(t)
	r := s.do(http.MethodPost, widgets, "application/json", `{"a":"`+strings.Repeat("x", 3<<20)+`"}`)
	wantStatus(t, r, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
	if r.get("message").String() != "Request entity too large: limit is 3145728" {
		t.Errorf("message: %s", r.get("message"))
	}
}

func TestInvalidStatusDetails(t *testing.T) {
	s := newTestServer(t)
	r := s.do(http.MethodPost, widgets, "application/json", widget("bad", `{"size":0}`))
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	if r.get("details.name").String() != "bad" || r.get("details.group").String() != "shop.example.com" || r.get("details.kind").String() != "Widget" {
		t.Fatalf("details: %s", r.get("details"))
	}
	if !strings.HasPrefix(r.get("message").String(), `Widget.shop.example.com "bad" is invalid: spec.size`) {
		t.Fatalf("message: %s", r.get("message"))
	}
	nf := s.do(http.MethodGet, widgets+"/ghost", "", "")
	wantStatus(t, nf, http.StatusNotFound, "NotFound")
	if nf.get("message").String() != `widgets.shop.example.com "ghost" not found` || nf.get("details.kind").String() != "widgets" {
		t.Fatalf("not found: %s", nf)
	}
}

func TestUnknownFieldsArePrunedWithAWarning(t *testing.T) {
	s := newTestServer(t)
	r := s.create(widgets, widget("unk", `{"bogus":1,"size":2}`))
	if r.get("spec.bogus").Exists() {
		t.Fatalf("unknown field kept: %s", r)
	}
	if w := r.header.Get("Warning"); w != `299 - "unknown field \"spec.bogus\""` {
		t.Fatalf("Warning header = %q", w)
	}
	ignored := s.create(widgets+"?fieldValidation=Ignore", widget("unk2", `{"bogus":1}`))
	if ignored.header.Get("Warning") != "" {
		t.Fatalf("warning under Ignore: %q", ignored.header.Get("Warning"))
	}
}

// TestDuplicateFields: of two members with one key, the last is the one
// checked, stored and answered, with a warning; Strict refuses the body.
func TestDuplicateFields(t *testing.T) {
	s := newTestServer(t)
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"first","name":"dup"},"spec":{"size":1,"size":2}}`
	r := s.create(widgets, body)
	if r.get("metadata.name").String() != "dup" || r.get("spec.size").Raw != "2" || strings.Count(r.String(), `"size"`) != 1 {
		t.Fatalf("created: %s", r)
	}
	if w := r.header.Values("Warning"); !slices.Equal(w, []string{`299 - "duplicate field \"metadata.name\""`, `299 - "duplicate field \"spec.size\""`}) {
		t.Errorf("Warning headers = %q", w)
	}
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/dup", "", "")
	wantStatus(t, s.do(http.MethodGet, widgets+"/first", "", ""), http.StatusNotFound, "NotFound")

	strict := s.do(http.MethodPost, widgets+"?fieldValidation=Strict", "application/json", strings.Replace(body, "dup", "strict", 1))
	wantStatus(t, strict, http.StatusBadRequest, "BadRequest")
	if want := `Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "metadata.name", duplicate field "spec.size"`; strict.get("message").String() != want {
		t.Errorf("strict: %s", strict)
	}
	// An update is read the same way: the last size is the one checked (max 100).
	rv := r.get("metadata.resourceVersion").String()
	update := s.do(http.MethodPut, widgets+"/dup", "application/json",
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"dup","resourceVersion":"`+rv+`"},"spec":{"size":3,"size":1000}}`)
	wantStatus(t, update, http.StatusUnprocessableEntity, "Invalid")
}

func TestDryRunCreateStoresNothing(t *testing.T) {
	s := newTestServer(t)
	r := s.create(widgets+"?dryRun=All", widget("dry", `{}`))
	if r.get("spec.color").String() != "red" {
		t.Fatalf("dry run answer lacks defaults: %s", r)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"/dry", "", ""), http.StatusNotFound, "NotFound")
}

// TestUnacceptableWriteChangesNothing: a write whose answer the client
// cannot accept is refused before it writes, as kube-apiserver does.
func TestUnacceptableWriteChangesNothing(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("kept", `{"size":1}`))
	html := []string{"Accept", "text/html"}
	tests := []struct {
		method, path, contentType, body string
	}{
		{http.MethodPost, widgets, "application/json", widget("new", `{}`)},
		{http.MethodPatch, widgets + "/kept", "application/merge-patch+json", `{"spec":{"size":2}}`},
		{http.MethodDelete, widgets + "/kept", "", ""},
	}
	for _, tt := range tests {
		wantStatus(t, s.do(tt.method, tt.path, tt.contentType, tt.body, html...), http.StatusNotAcceptable, "NotAcceptable")
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"/new", "", ""), http.StatusNotFound, "NotFound")
	if kept := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/kept", "", ""); kept.get("spec.size").Int() != 1 {
		t.Errorf("refused patch changed the object: %s", kept)
	}
}

func TestRoutingErrors(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name, method, path string
		header             []string
		code               int
		reason             string
	}{
		{"unknown path", "GET", "/nothing/here", nil, 404, "NotFound"},
		{"unknown group", "GET", "/apis/nope.example.com/v1/widgets", nil, 404, "NotFound"},
		{"unknown version", "GET", "/apis/shop.example.com/v9/widgets", nil, 404, "NotFound"},
		{"unknown resource", "GET", "/apis/shop.example.com/v1/gadgets", nil, 404, "NotFound"},
		{"unknown group discovery", "GET", "/apis/nope.example.com", nil, 404, "NotFound"},
		{"namespaced object without namespace", "GET", "/apis/shop.example.com/v1/widgets/x", nil, 404, "NotFound"},
		{"too deep", "GET", widgets + "/a/b/c", nil, 404, "NotFound"},
		{"POST on an object", "POST", widgets + "/x", nil, 405, "MethodNotAllowed"},
		{"PUT on a collection", "PUT", widgets, nil, 405, "MethodNotAllowed"},
		{"create across namespaces", "POST", "/apis/shop.example.com/v1/widgets", nil, 405, "MethodNotAllowed"},
		{"POST on discovery", "POST", "/apis/shop.example.com/v1", nil, 405, "MethodNotAllowed"},
		{"DELETE on /apis", "DELETE", "/apis", nil, 405, "MethodNotAllowed"},
		{"unacceptable", "GET", widgets, []string{"Accept", "text/html"}, 406, "NotAcceptable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantStatus(t, s.do(tt.method, tt.path, "", "", tt.header...), tt.code, tt.reason)
		})
	}
}
