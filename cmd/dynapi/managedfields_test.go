package main

import (
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/tidwall/gjson"
)

const pipesPath = "/apis/plumbing.example.com/%s/namespaces/default/pipes"

// klogLine is a line in klog's own format ("E1128 04:53:23.978677 ..."),
// which the server's log must never hold: Kubernetes' libraries log
// through the server's logger.
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ `)

// Writes of a Pipe through versions that are not the storage version (v2),
// that rename (v1's owner), move (v3's dimensions) and add fields (v2's
// insulation, which v1 cannot hold; v3's notes, which v2 keeps in an
// annotation), each keep their managedFields entry, in the request's
// apiVersion, with the fields they set; nothing is logged by klog, and
// no error at all.
func TestManagedFieldsThroughConversion(t *testing.T) {
	url, _ := startPostgres(t)
	p := startProcess(t, "A", url)
	steps := []struct {
		method, version, contentType, query, body string
	}{
		{http.MethodPost, "v1", "application/json", "fieldManager=creator",
			`{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"main"},"spec":{"owner":"team-water","diameter":120,"material":"steel","outlet":"north","pressure":6}}`},
		{http.MethodPatch, "v2", "application/merge-patch+json", "fieldManager=patcher",
			`{"spec":{"insulation":"Foam","outlets":["north","south"],"pressure":6.5}}`},
		{http.MethodPatch, "v3", "application/merge-patch+json", "fieldManager=noter",
			`{"spec":{"notes":"laid in 1998","dimensions":{"diameter":125}}}`},
		{http.MethodPatch, "v1", "application/apply-patch+yaml", "fieldManager=applier&force=true",
			`{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"main"},"spec":{"owner":"team-gas","tags":"potable"}}`},
		{http.MethodPatch, "v1", "application/merge-patch+json", "fieldManager=renamer", `{"spec":{"owner":"team-oil"}}`},
	}
	for _, s := range steps {
		path := p.url + strings.Replace(pipesPath, "%s", s.version, 1)
		if s.method == http.MethodPatch {
			path += "/main"
		}
		code, out := sendAs(t, s.method, path+"?"+s.query, s.contentType, s.body)
		if code >= 300 {
			t.Fatalf("%s %s?%s = %d: %s", s.method, s.version, s.query, code, out)
		}
	}
	_, obj := httpGet(t, p.url+strings.Replace(pipesPath, "%s", "v2", 1)+"/main")
	want := []struct {
		manager, operation, apiVersion string
		fields, taken                  []string // paths in fieldsV1: owned, and taken by a later write
	}{
		// noter's dimensions.diameter is creator's diameter, patcher's
		// pressure creator's too; renamer's owner is applier's.
		{"creator", "Update", "plumbing.example.com/v1", []string{"f:spec.f:outlet", "f:spec.f:material"}, []string{"f:spec.f:diameter", "f:spec.f:pressure"}},
		{"patcher", "Update", "plumbing.example.com/v2", []string{"f:spec.f:insulation", "f:spec.f:outlets", "f:spec.f:pressure"}, nil},
		{"noter", "Update", "plumbing.example.com/v3", []string{"f:spec.f:notes", "f:spec.f:dimensions.f:diameter"}, nil},
		{"applier", "Apply", "plumbing.example.com/v1", []string{"f:spec.f:tags"}, []string{"f:spec.f:owner"}},
		{"renamer", "Update", "plumbing.example.com/v1", []string{"f:spec.f:owner"}, nil},
	}
	entries := gjson.Get(obj, "metadata.managedFields").Array()
	for _, w := range want {
		e := entryOf(entries, w.manager, w.operation)
		if !e.Exists() {
			t.Errorf("no %s entry of %s in %s", w.operation, w.manager, gjson.Get(obj, "metadata.managedFields").Raw)
			continue
		}
		if got := e.Get("apiVersion").Str; got != w.apiVersion {
			t.Errorf("%s's entry has apiVersion %s, want %s", w.manager, got, w.apiVersion)
		}
		for _, f := range w.fields {
			if !e.Get("fieldsV1." + f).Exists() {
				t.Errorf("%s's entry lacks %s: %s", w.manager, f, e.Get("fieldsV1").Raw)
			}
		}
		for _, f := range w.taken {
			if e.Get("fieldsV1." + f).Exists() {
				t.Errorf("%s's entry still has %s: %s", w.manager, f, e.Get("fieldsV1").Raw)
			}
		}
	}
	if err := p.end(t, syscall.SIGTERM); err != nil {
		t.Fatalf("dynapi A: %v", err)
	}
	p.log.check(t, p.name)
	if lines := klogLine.FindAllString(p.log.String(), -1); len(lines) > 0 {
		t.Errorf("klog wrote %d lines of its own; the log:\n%s", len(lines), p.log.tail())
	}
}

// entryOf is the managedFields entry of manager and operation.
func entryOf(entries []gjson.Result, manager, operation string) gjson.Result {
	for _, e := range entries {
		if e.Get("manager").Str == manager && e.Get("operation").Str == operation {
			return e
		}
	}
	return gjson.Result{}
}
