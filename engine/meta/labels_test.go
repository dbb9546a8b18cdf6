package meta

import (
	"slices"
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// TestPlainAnnotationsAsKube: plainAnnotations says valid exactly when
// Kubernetes' ValidateAnnotations finds nothing.
func TestPlainAnnotationsAsKube(t *testing.T) {
	for _, k := range append(labelSeeds, "Example.COM/Key", "EXAMPLE.com/k", "\u212a8s.io/x", "İ.example/k") {
		sameAnnotationsAsKube(t, map[string]string{k: "v"})
	}
	big := strings.Repeat("v", apivalidation.TotalAnnotationSizeLimitB-2)
	sameAnnotationsAsKube(t, map[string]string{"ab": big})          // at the limit
	sameAnnotationsAsKube(t, map[string]string{"abc": big})         // one byte over
	sameAnnotationsAsKube(t, map[string]string{"a": big, "b": "v"}) // over, in two
}

// FuzzPlainAnnotations: as TestPlainAnnotationsAsKube, for any key.
func FuzzPlainAnnotations(f *testing.F) {
	for _, s := range labelSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) { sameAnnotationsAsKube(t, map[string]string{k: "v", "app": ""}) })
}

func sameAnnotationsAsKube(t *testing.T, annotations map[string]string) {
	want := len(apivalidation.ValidateAnnotations(annotations, field.NewPath("metadata", "annotations"))) == 0
	if plainAnnotations(annotations) != want {
		t.Fatalf("plainAnnotations(%.80q) = %v, Kubernetes says %v", annotations, !want, want)
	}
}

// TestValidateAsKube: ValidateCreate and ValidateUpdate answer as
// Kubernetes' ValidateObjectMeta and ValidateObjectMetaUpdate do on the
// whole metadata, which they skip for plain labels and annotations: the
// same causes, in the same order, duplicates included.
func TestValidateAsKube(t *testing.T) {
	old := metav1.ObjectMeta{Name: "a", Namespace: "b", UID: "u", ResourceVersion: "1", Generation: 1,
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"example.com/note": "x"}}
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
	}{
		{"plain", map[string]string{"app": "web", "example.com/tier": ""}, map[string]string{"example.com/Owner": "someone", "note": "a\nb"}},
		{"none", nil, nil},
		{"bad label key", map[string]string{"bad key!": "v"}, map[string]string{"note": "x"}},
		{"bad label value", map[string]string{"app": strings.Repeat("v", 64)}, nil},
		{"bad annotation key", map[string]string{"app": "web"}, map[string]string{"bad key!": "v", "ok": ""}},
		{"upper-case prefix", nil, map[string]string{"Example.com/note": "v"}},
		{"annotations too big", map[string]string{"app": "web"}, map[string]string{"note": strings.Repeat("v", apivalidation.TotalAnnotationSizeLimitB)}},
		{"both bad", map[string]string{"-": "-"}, map[string]string{"/": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := old
			m.Labels, m.Annotations = tt.labels, tt.annotations
			path := field.NewPath("metadata")
			wantCreate := apivalidation.ValidateObjectMeta(&m, true, NameRule(false), path)
			if got, want := ValidateCreate(&m, true, NameRule(false)), FieldErrors(wantCreate); !slices.Equal(got, want) {
				t.Errorf("ValidateCreate:\n%v\nwant\n%v", got, want)
			}
			wantUpdate := append(wantCreate, apivalidation.ValidateObjectMetaUpdate(&m, &old, path)...)
			if got, want := ValidateUpdate(&m, &old, true, NameRule(false)), FieldErrors(wantUpdate); !slices.Equal(got, want) {
				t.Errorf("ValidateUpdate:\n%v\nwant\n%v", got, want)
			}
		})
	}
}
