package registry

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/engine"
)

// testSnapshot loads definitions given as file name → content, failing on any problem.
func testSnapshot(t *testing.T, files map[string]string) *Snapshot {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	snap, problems := loadFiles(fsys, nil)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	return snap
}

// versions lists versionDoc items, the first one the storage version.
func versions(names ...string) string {
	s := "versions:\n"
	for i, n := range names {
		served := "true"
		n, unserved := strings.CutSuffix(n, "!")
		if unserved {
			served = "false"
		}
		extra := []string{"  served: " + served}
		if i == 0 {
			extra = append(extra, "  storage: true")
		}
		s += versionDoc(n, extra...)
	}
	return s
}

func TestVersionPriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{name: "GA beta alpha", in: []string{"v1alpha1", "v1", "v1beta1"}, want: []string{"v1", "v1beta1", "v1alpha1"}},
		{name: "numbers not text", in: []string{"v2", "v10", "v1"}, want: []string{"v10", "v2", "v1"}},
		{name: "major before minor", in: []string{"v1beta2", "v2beta1", "v1beta10"}, want: []string{"v2beta1", "v1beta10", "v1beta2"}},
		{name: "any beta before any alpha", in: []string{"v3alpha1", "v1beta1"}, want: []string{"v1beta1", "v3alpha1"}},
		{name: "others last, alphabetical", in: []string{"foo", "v1", "bar", "v1alpha1"}, want: []string{"v1", "v1alpha1", "bar", "foo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap := testSnapshot(t, map[string]string{"t.yaml": thing(versions(tt.in...))})
			r, _ := snap.ResourceByKind("test.example.com", "Thing")
			var got []string
			for _, v := range r.Versions {
				got = append(got, v.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if g, _ := snap.Group("test.example.com"); !slices.Equal(g.Versions, tt.want) || g.PreferredVersion != tt.want[0] {
				t.Errorf("group %+v, want versions %v", g, tt.want)
			}
		})
	}
}

// threeGroups has a core kind, a kind in two groups, versions spread over
// resources and versions that are not served.
var threeGroups = map[string]string{
	"core/namespace.yaml": thing("group: \"\"", "kind: Namespace", "plural: namespaces", "scope: Cluster"),
	"b/widget.yaml":       thing("group: b.example.com", "kind: Widget", "plural: widgets", versions("v1", "v1beta1", "v2alpha1!")),
	"b/gizmo.yaml":        thing("group: b.example.com", "kind: Gizmo", "plural: gizmos", versions("v1beta2", "v1beta1")),
	"a/widget.yaml":       thing("group: a.example.com", "kind: Widget", "plural: widgets", versions("v1alpha1")),
	"c/hidden.yaml":       thing("group: c.example.com", "kind: Hidden", "plural: hiddens", versions("v1!")),
}

func TestGroups(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	want := []Group{
		{Name: "", Versions: []string{"v1"}, PreferredVersion: "v1"},
		{Name: "a.example.com", Versions: []string{"v1alpha1"}, PreferredVersion: "v1alpha1"},
		{Name: "b.example.com", Versions: []string{"v1", "v1beta2", "v1beta1"}, PreferredVersion: "v1"},
	}
	if got := snap.Groups(); !reflect.DeepEqual(got, want) {
		t.Errorf("Groups:\n got %+v\nwant %+v", got, want)
	}
	if _, ok := snap.Group("c.example.com"); ok {
		t.Error("a group serving nothing is listed")
	}
	if g, _ := snap.Group("b.example.com"); !g.HasVersion("v1beta2") || g.HasVersion("v2alpha1") {
		t.Errorf("HasVersion wrong for %+v", g)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	tests := []struct {
		group, version, resource string
		want                     string // "kind/version", "" for not found
	}{
		{"", "v1", "namespaces", "Namespace/v1"},
		{"b.example.com", "v1beta1", "widgets", "Widget/v1beta1"},
		{"a.example.com", "v1alpha1", "widgets", "Widget/v1alpha1"},
		{"b.example.com", "v2alpha1", "widgets", ""}, // not served
		{"c.example.com", "v1", "hiddens", ""},       // not served
		{"b.example.com", "v1beta2", "widgets", ""},  // another resource's version
		{"b.example.com", "v1", "widget", ""},        // singular is no URL name
		{"", "v1", "widgets", ""},
		{"x.example.com", "v1", "widgets", ""},
	}
	for _, tt := range tests {
		r, v, ok := snap.Lookup(tt.group, tt.version, tt.resource)
		got := ""
		if ok {
			got = r.Kind + "/" + v.Name
		}
		if got != tt.want {
			t.Errorf("Lookup(%q, %q, %q) = %q, want %q", tt.group, tt.version, tt.resource, got, tt.want)
		}
	}
}

func TestServedResources(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	tests := []struct {
		group, version string
		want           []string
	}{
		{"b.example.com", "v1beta1", []string{"gizmos", "widgets"}},
		{"b.example.com", "v1", []string{"widgets"}},
		{"b.example.com", "v2alpha1", nil},
		{"c.example.com", "v1", nil},
		{"", "v1", []string{"namespaces"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range snap.ServedResources(tt.group, tt.version) {
			got = append(got, r.Plural)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ServedResources(%q, %q) = %v, want %v", tt.group, tt.version, got, tt.want)
		}
	}
}

func TestResources(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	var got []string
	for _, r := range snap.Resources() {
		got = append(got, r.GroupResource().String())
	}
	want := []string{"namespaces", "widgets.a.example.com", "gizmos.b.example.com", "widgets.b.example.com", "hiddens.c.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestResourceByKind(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	for _, group := range []string{"a.example.com", "b.example.com"} {
		if r, ok := snap.ResourceByKind(group, "Widget"); !ok || r.Group != group {
			t.Errorf("ResourceByKind(%q, Widget) = %v, %v", group, r, ok)
		}
	}
	if r, ok := snap.ResourceByKind("c.example.com", "Hidden"); !ok || r.Plural != "hiddens" {
		t.Error("a resource that serves nothing is still found by kind")
	}
	if _, ok := snap.ResourceByKind("b.example.com", "widget"); ok {
		t.Error("kinds are case-sensitive")
	}
}

func TestResource(t *testing.T) {
	t.Parallel()
	snap := testSnapshot(t, threeGroups)
	tests := []struct {
		gr   engine.GroupResource
		want string // kind; "": not found
	}{
		{engine.GroupResource{Group: "b.example.com", Resource: "gizmos"}, "Gizmo"},
		{engine.GroupResource{Group: "c.example.com", Resource: "hiddens"}, "Hidden"}, // serves nothing
		{engine.GroupResource{Resource: "namespaces"}, "Namespace"},
		{engine.GroupResource{Group: "b.example.com", Resource: "widget"}, ""}, // singular is no URL name
		{engine.GroupResource{Group: "x.example.com", Resource: "widgets"}, ""},
	}
	for _, tt := range tests {
		r, ok := snap.Resource(tt.gr)
		got := ""
		if ok {
			got = r.Kind
		}
		if got != tt.want {
			t.Errorf("Resource(%v) = %q, want %q", tt.gr, got, tt.want)
		}
	}
}

func TestDeprecationWarning(t *testing.T) {
	t.Parallel()
	deprecated := func(name string, extra ...string) string {
		return versionDoc(name, append([]string{"  deprecated: true"}, extra...)...)
	}
	tests := []struct {
		name     string
		group    string
		versions string
		version  string
		want     string
	}{
		{name: "not deprecated", group: "test.example.com", versions: versionDoc("v1", "  storage: true"), version: "v1"},
		{name: "own text", group: "test.example.com", versions: versionDoc("v1", "  storage: true") + deprecated("v1beta1", "  deprecationWarning: use v1"),
			version: "v1beta1", want: "use v1"},
		{name: "default names a better version", group: "test.example.com",
			versions: deprecated("v2beta1") + versionDoc("v1", "  storage: true") + versionDoc("v1beta1", "  served: false") + deprecated("v1alpha1"),
			version:  "v1alpha1", want: "test.example.com/v1alpha1 Thing is deprecated; use test.example.com/v1 Thing"},
		{name: "default without a better version", group: "test.example.com",
			versions: versionDoc("v1") + deprecated("v2", "  storage: true"),
			version:  "v2", want: "test.example.com/v2 Thing is deprecated"},
		{name: "core group", group: `""`, versions: deprecated("v1", "  storage: true"), version: "v1", want: "v1 Thing is deprecated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap := testSnapshot(t, map[string]string{"t.yaml": thing("group: "+tt.group, "versions:\n"+tt.versions)})
			r := snap.Resources()[0]
			v, _ := r.Version(tt.version)
			if got := r.DeprecationWarning(v); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "shop/x.yaml", Line: 12, Reason: "bad"}, "shop/x.yaml:12: bad"},
		{Problem{File: "shop/x.yaml", Reason: "bad"}, "shop/x.yaml: bad"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
