package httpapi_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"

func widget(name, spec string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

func TestCreateFillsMetadataAndDefaults(t *testing.T) {
	s := newTestServer(t)
	before := time.Now().UTC().Add(-time.Second)
	r := s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget",
		"metadata":{"name":"w1","labels":{"app":"web"}},"spec":{"size":3},"status":{"phase":"Set"}}`)
	for path, want := range map[string]string{
		"metadata.name": "w1", "metadata.namespace": "default", "metadata.generation": "1",
		"metadata.labels.app": "web", "spec.color": "red", "spec.size": "3", "kind": "Widget",
	} {
		if got := r.get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if r.get("status").Exists() {
		t.Errorf("status set on create of a kind with a status subresource: %s", r.get("status"))
	}
	if uid := r.get("metadata.uid").String(); len(uid) != 36 {
		t.Errorf("uid = %q, want a UUID", uid)
	}
	if rv := r.get("metadata.resourceVersion").Int(); rv <= 0 {
		t.Errorf("resourceVersion = %d", rv)
	}
	created, err := time.Parse(time.RFC3339, r.get("metadata.creationTimestamp").String())
	if err != nil || created.Before(before) {
		t.Errorf("creationTimestamp = %q (%v)", r.get("metadata.creationTimestamp"), err)
	}
	got := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/w1", "", "")
	jsoneq.Assert(t, got.body, r.String())
}

func TestGenerateName(t *testing.T) {
	s := newTestServer(t)
	r := s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"gen-"},"spec":{}}`)
	name := r.get("metadata.name").String()
	if len(name) != len("gen-")+5 || name[:4] != "gen-" {
		t.Fatalf("generated name = %q", name)
	}
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/"+name, "", "")
}

func TestCreateYAML(t *testing.T) {
	s := newTestServer(t)
	r := s.mustDo(http.StatusCreated, http.MethodPost, widgets, "application/yaml",
		"apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: y1\nspec:\n  color: blue\n  tags: [a, b]\n")
	if r.get("spec.color").String() != "blue" || r.get("spec.tags.1").String() != "b" {
		t.Fatalf("YAML body not applied: %s", r)
	}
	y := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/y1", "", "", "Accept", "application/yaml")
	if y.header.Get("Content-Type") != "application/yaml" || !strings.Contains(y.String(), "color: blue") {
		t.Fatalf("YAML response: %s %s", y.header.Get("Content-Type"), y)
	}
}

func TestResourceVersionsIncrease(t *testing.T) {
	s := newTestServer(t)
	var last int64
	for i := range 5 {
		r := s.create(widgets, widget("rv"+strconv.Itoa(i), `{}`))
		rv := r.get("metadata.resourceVersion").Int()
		if rv <= last {
			t.Fatalf("resourceVersion %d after %d", rv, last)
		}
		last = rv
	}
	r := s.create("/apis/shop.example.com/v1/warehouses", `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"w"},"spec":{"location":"x"}}`)
	if rv := r.get("metadata.resourceVersion").Int(); rv <= last {
		t.Fatalf("resourceVersion of another resource %d after %d: not cluster-wide", rv, last)
	}
}

func TestListInNamespaceAndAcrossNamespaces(t *testing.T) {
	s := newTestServer(t)
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	s.create(widgets, widget("a", `{}`))
	s.create(widgets, widget("b", `{}`))
	s.create("/apis/shop.example.com/v1/namespaces/other/widgets", widget("c", `{}`))

	tests := []struct {
		path  string
		names string
	}{
		{widgets, `["a","b"]`},
		{"/apis/shop.example.com/v1/namespaces/other/widgets", `["c"]`},
		{"/apis/shop.example.com/v1/widgets", `["a","b","c"]`},
		{widgets + "?labelSelector=missing", `[]`},
		{"/apis/shop.example.com/v1/widgets?fieldSelector=metadata.namespace=other", `["c"]`},
		{"/apis/shop.example.com/v1/widgets?fieldSelector=metadata.name!=a", `["b","c"]`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := s.mustDo(http.StatusOK, http.MethodGet, tt.path, "", "")
			if r.get("kind").String() != "WidgetList" || r.get("apiVersion").String() != "shop.example.com/v1" {
				t.Errorf("list kind/apiVersion: %s %s", r.get("kind"), r.get("apiVersion"))
			}
			if r.get("metadata.resourceVersion").Int() <= 0 {
				t.Errorf("list resourceVersion missing: %s", r.get("metadata"))
			}
			jsoneq.Assert(t, r.get("items.#.metadata.name").Raw, tt.names)
		})
	}
}

func TestListLabelSelector(t *testing.T) {
	s := newTestServer(t)
	for _, w := range []struct{ name, labels string }{
		{"a", `{"app":"web","tier":"front"}`}, {"b", `{"app":"db"}`}, {"c", `{"app.kubernetes.io/name":"x"}`},
	} {
		s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"`+w.name+`","labels":`+w.labels+`},"spec":{}}`)
	}
	tests := []struct{ selector, names string }{
		{"app=web", `["a"]`},
		{"app!=web", `["b","c"]`},
		{"app in (web,db)", `["a","b"]`},
		{"app notin (web)", `["b","c"]`},
		{"tier", `["a"]`},
		{"!tier", `["b","c"]`},
		{"app.kubernetes.io/name=x", `["c"]`},
		{"app=web,tier=back", `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			r := s.mustDo(http.StatusOK, http.MethodGet, widgets+"?labelSelector="+url.QueryEscape(tt.selector), "", "")
			jsoneq.Assert(t, r.get("items.#.metadata.name").Raw, tt.names)
		})
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?labelSelector="+url.QueryEscape("app in ("), "", ""), http.StatusBadRequest, "BadRequest")
}

func TestListPages(t *testing.T) {
	s := newTestServer(t)
	for i := range 5 {
		s.create(widgets, widget("p"+strconv.Itoa(i), `{}`))
	}
	var names []string
	path := widgets + "?limit=2"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("continue never ends")
		}
		r := s.mustDo(http.StatusOK, http.MethodGet, path, "", "")
		for _, n := range r.get("items.#.metadata.name").Array() {
			names = append(names, n.String())
		}
		next := r.get("metadata.continue").String()
		if next == "" {
			break
		}
		path = widgets + "?limit=2&continue=" + url.QueryEscape(next)
	}
	if got := len(names); got != 5 || names[0] != "p0" || names[4] != "p4" {
		t.Fatalf("paged names = %v", names)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?limit=2&continue=garbage", "", ""), http.StatusBadRequest, "BadRequest")
}

func TestTable(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("t1", `{"size":4,"color":"blue"}`))
	const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	list := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "", "Accept", accept)
	if list.get("kind").String() != "Table" || list.get("apiVersion").String() != "meta.k8s.io/v1" ||
		list.header.Get("Content-Type") != "application/json;as=Table;v=v1;g=meta.k8s.io" {
		t.Fatalf("table list: %s %s", list.header.Get("Content-Type"), list)
	}
	jsoneq.Assert(t, list.get("columnDefinitions.#.name").Raw, `["Name","Color","Size","Age"]`)
	cells := list.get("rows.0.cells").Array()
	if len(cells) != 4 || cells[0].String() != "t1" || cells[1].String() != "blue" || cells[2].Int() != 4 || !strings.HasSuffix(cells[3].String(), "s") {
		t.Fatalf("cells: %s", list.get("rows.0.cells"))
	}
	if list.get("rows.0.object.kind").String() != "PartialObjectMetadata" || list.get("metadata.resourceVersion").Int() == 0 {
		t.Fatalf("table row object or metadata: %s", list)
	}
	one := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/t1?includeObject=Object", "", "", "Accept", accept)
	if one.get("rows.0.object.spec.size").Int() != 4 {
		t.Fatalf("table of one object: %s", one)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?includeObject=All", "", "", "Accept", accept), http.StatusBadRequest, "BadRequest")
}
