package registry

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseRuntimeConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		config  string
		wantErr string
	}{
		{config: ""},
		{config: "shop.example.com/v1=false, labs.example.com=false,api/all=true,api/v1,api/beta=false"},
		{config: "shop.example.com/v1=maybe", wantErr: "must be true or false"},
		{config: "a/b/c=false", wantErr: "the key must be"},
		{config: "=false", wantErr: "the key must be"},
		{config: "shop.example.com/=false", wantErr: "the key must be"},
	}
	for _, tt := range tests {
		_, err := ParseRuntimeConfig(tt.config)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseRuntimeConfig(%q) = %v, want %q", tt.config, err, tt.wantErr)
		}
	}
}

func TestRuntimeConfigEnabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		config, group, version string
		want                   bool
	}{
		{"", "shop.example.com", "v1", true},
		{"shop.example.com/v1=false", "shop.example.com", "v1", false},
		{"shop.example.com/v1=false", "shop.example.com", "v2", true},
		{"shop.example.com=false", "shop.example.com", "v2", false},
		{"shop.example.com=false,shop.example.com/v2=true", "shop.example.com", "v2", true},
		{"shop.example.com=false", "labs.example.com", "v1", true},
		{"api/all=false", "shop.example.com", "v1", false},
		{"api/all=false,shop.example.com", "shop.example.com", "v1", true},
		{"api/beta=false", "shop.example.com", "v1beta1", false},
		{"api/beta=false", "shop.example.com", "v1", true},
		{"api/alpha=false,api/all=true", "shop.example.com", "v2alpha3", false},
		{"api/v1=false", "", "v1", false},
		{"api/v1=false", "shop.example.com", "v1", true},
	}
	for _, tt := range tests {
		c, err := ParseRuntimeConfig(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Enabled(tt.group, tt.version); got != tt.want {
			t.Errorf("%q: Enabled(%q, %q) = %v, want %v", tt.config, tt.group, tt.version, got, tt.want)
		}
	}
}

// A switched-off version is loaded unserved: no lookup, no discovery.
func TestLoadRuntimeConfig(t *testing.T) {
	t.Parallel()
	c, err := ParseRuntimeConfig("test.example.com/v1beta1=false,other.example.com=false")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"thing.yaml": {Data: []byte(thing(versions("v1", "v1beta1")))},
		"other.yaml": {Data: []byte(thing("group: other.example.com"))},
	}
	snap, problems := LoadWith(fsys, nil, LoadOptions{WithoutBuiltins: true, RuntimeConfig: c})
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	if _, _, ok := snap.Lookup("test.example.com", "v1beta1", "things"); ok {
		t.Error("v1beta1 is served")
	}
	if _, _, ok := snap.Lookup("test.example.com", "v1", "things"); !ok {
		t.Error("v1 is not served")
	}
	if g, ok := snap.Group("test.example.com"); !ok || strings.Join(g.Versions, ",") != "v1" {
		t.Errorf("group test.example.com: %+v", g)
	}
	if _, ok := snap.Group("other.example.com"); ok {
		t.Error("other.example.com is in discovery")
	}
}

// TestRuntimeConfigUnmatched: a key that names a group or version no
// definition declares (served or not) is reported; stability keys never are.
func TestRuntimeConfigUnmatched(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"thing.yaml": {Data: []byte(thing(versions("v1", "v1beta1")))}}
	tests := []struct {
		config string
		want   string
	}{
		{config: ""},
		{config: "test.example.com=false,test.example.com/v1,test.example.com/v1beta1=false"},
		{config: "api/all=false,api/ga,api/beta=false,api/alpha"},
		{config: "test.example.com/v1beta=false", want: "test.example.com/v1beta"},
		{config: "tests.example.com=false,api/v1=false", want: "api/v1,tests.example.com"},
		{config: "test.example.com/v1=false", want: ""}, // switched off, still declared
		{config: "test.example.com=false", want: ""},    // every version off
	}
	for _, tt := range tests {
		c, err := ParseRuntimeConfig(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		snap, problems := LoadWith(fsys, nil, LoadOptions{WithoutBuiltins: true, RuntimeConfig: c})
		if len(problems) > 0 {
			t.Fatalf("problems:\n%s", problemList(problems))
		}
		if got := strings.Join(c.Unmatched(snap), ","); got != tt.want {
			t.Errorf("%q: Unmatched = %q, want %q", tt.config, got, tt.want)
		}
	}
}
