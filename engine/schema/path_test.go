package schema

import (
	"slices"
	"testing"

	"github.com/tidwall/gjson"
)

func TestFieldPathString(t *testing.T) {
	t.Parallel()
	key := func(k string) pathElem { return pathElem{key: k, index: -1} }
	idx := func(i int) pathElem { return pathElem{index: i} }
	tests := []struct {
		path fieldPath
		want string
	}{
		{nil, ""},
		{fieldPath{key("spec"), key("replicas")}, "spec.replicas"},
		{fieldPath{key("spec"), key("ports"), idx(0), key("name")}, "spec.ports[0].name"},
		{fieldPath{key("metadata"), key("labels"), key("app.kubernetes.io/name")}, "metadata.labels[app.kubernetes.io/name]"},
		{fieldPath{key("a.b"), key("c")}, "[a.b].c"},
		{fieldPath{key("m"), key("")}, "m[]"},
		{fieldPath{idx(2), idx(3)}, "[2][3]"},
	}
	for _, tt := range tests {
		if got := tt.path.String(); got != tt.want {
			t.Errorf("%v.String() = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestPointerTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ptr  string
		want []string
	}{
		{"", nil},
		{"mem://x.json#", nil},
		{"/spec/replicas", []string{"spec", "replicas"}},
		{"mem://x.json#/properties/a~1b/properties/c~0d", []string{"properties", "a/b", "properties", "c~d"}},
		{"/properties/a%20b%25", []string{"properties", "a b%"}},
	}
	for _, tt := range tests {
		if got := pointerTokens(tt.ptr); !slices.Equal(got, tt.want) {
			t.Errorf("pointerTokens(%q) = %q, want %q", tt.ptr, got, tt.want)
		}
	}
}

// TestFragment checks that fragment and pointerTokens undo each other.
func TestFragment(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"plain", "a/b", "c~d", "e f%", "ü"} {
		if got := pointerTokens("#/" + fragment(token)); !slices.Equal(got, []string{token}) {
			t.Errorf("pointerTokens(fragment(%q)) = %q", token, got)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	doc := gjson.Parse(`{"spec":{"l":[{"n":"a"}],"m":{"0":"zero","a.b":{"c":true}}}}`)
	tests := []struct {
		ptr, base, wantPath, wantRaw string
	}{
		{"", "", "", doc.Raw},
		{"/spec/l/0/n", "", "spec.l[0].n", `"a"`},
		{"/spec/m/0", "", "spec.m.0", `"zero"`},
		{"/spec/m/a.b/c", "", "spec.m[a.b].c", "true"},
		{"/x", "default", "default.x", ""},
	}
	for _, tt := range tests {
		value, path := resolve(doc, tt.ptr, tt.base)
		if path != tt.wantPath || value.Raw != tt.wantRaw {
			t.Errorf("resolve(%q) = %q, %q; want %q, %q", tt.ptr, value.Raw, path, tt.wantRaw, tt.wantPath)
		}
	}
}
