package meta

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// labelSeeds are label keys and values at the edges of Kubernetes' rules.
var labelSeeds = []string{
	"", "a", "app", "A-b_c.d", "-a", "a-", "_a", "a.", "a..b", "example.com/key", "example.com/", "/key",
	"Example.com/key", "a/b/c", "ex_ample.com/key", "ex-.com/k", "-ex.com/k", "ex..com/k", ".ex.com/k", "ex.com./k",
	"1.2.3/4", "x/" + strings.Repeat("a", 63), "x/" + strings.Repeat("a", 64), strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a.", 126) + "a/k", strings.Repeat("a.", 127) + "a/k", "ünïcode", "a b", "a\x00b", "k8s.io/app", "app.kubernetes.io/name",
}

// TestPlainLabelsAsKube: plainLabelKey and plainLabelValue accept exactly
// what Kubernetes' validation does.
func TestPlainLabelsAsKube(t *testing.T) {
	for _, s := range labelSeeds {
		sameAsKube(t, s)
	}
}

// FuzzPlainLabels: as TestPlainLabelsAsKube, for any string.
func FuzzPlainLabels(f *testing.F) {
	for _, s := range labelSeeds {
		f.Add(s)
	}
	f.Fuzz(sameAsKube)
}

func sameAsKube(t *testing.T, s string) {
	if want := len(validation.IsQualifiedName(s)) == 0; plainLabelKey(s) != want {
		t.Fatalf("plainLabelKey(%q) = %v, Kubernetes says %v", s, !want, want)
	}
	if want := len(validation.IsValidLabelValue(s)) == 0; plainLabelValue(s) != want {
		t.Fatalf("plainLabelValue(%q) = %v, Kubernetes says %v", s, !want, want)
	}
}

// TestValidateCreateLabels: labels the scan finds plain pass, others get
// Kubernetes' own causes.
func TestValidateCreateLabels(t *testing.T) {
	tests := []struct {
		labels map[string]string
		want   []string // "path: message" of each cause
	}{
		{map[string]string{"app": "web", "example.com/tier": "", "k8s.io/x": "A_b.c"}, nil},
		{map[string]string{"bad key!": "v"}, []string{"metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
		{map[string]string{"app": strings.Repeat("v", 64)}, []string{"metadata.labels: Invalid value: \"" + strings.Repeat("v", 64) + "\": must be no more than 63 bytes"}},
	}
	for _, tt := range tests {
		m := &metav1.ObjectMeta{Name: "a", Namespace: "b", Labels: tt.labels}
		var got []string
		for _, c := range ValidateCreate(m, true, NameRule(false)) {
			got = append(got, c.Path+": "+c.Message)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("labels %v: causes\n%q\nwant\n%q", tt.labels, got, tt.want)
		}
	}
}
