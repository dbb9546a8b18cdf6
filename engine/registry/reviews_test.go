package registry

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/engine"
)

// A definition file that takes a review's names (one the server answers
// with a handler, and no snapshot serves) is refused like one that takes
// a built-in kind's: reported with its file, the others served.
func TestLoadRefusesReviewNames(t *testing.T) {
	t.Parallel()
	def := func(group, kind, plural string) []byte {
		return []byte("group: " + group + "\nkind: " + kind + "\nplural: " + plural +
			"\nscope: Cluster\nversions:\n- {name: v1, storage: true, schema: {type: object}}\n")
	}
	tests := []struct {
		name, file string
		body       []byte
		want       string
	}{
		{"a review's plural", "authorization.k8s.io/ssar.yaml", def("authorization.k8s.io", "Shadow", "selfsubjectaccessreviews"),
			"resource selfsubjectaccessreviews.authorization.k8s.io is already defined in builtin:reviews; the server answers this review itself"},
		{"a review's kind", "authentication.k8s.io/ssr.yaml", def("authentication.k8s.io", "SelfSubjectReview", "mirrors"),
			`kind "SelfSubjectReview" collides with the singular "selfsubjectreview" of selfsubjectreviews.authentication.k8s.io (defined in builtin:reviews)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{tt.file: {Data: tt.body}, "example.com/other.yaml": {Data: def("example.com", "Other", "others")}}
			snap, problems := Load(fsys, nil)
			said := false
			for _, p := range problems {
				said = said || strings.Contains(p.Reason, tt.want)
				if p.File != tt.file {
					t.Errorf("problem of another file: %s", p)
				}
			}
			if !said {
				t.Fatalf("problems %s, want one of %s saying %q", problemList(problems), tt.file, tt.want)
			}
			if resourceOf(snap, engine.GroupResource{Group: "example.com", Resource: "others"}) == nil {
				t.Errorf("the other file is not served")
			}
			if _, _, ok := snap.Lookup("authorization.k8s.io", "v1", "selfsubjectaccessreviews"); ok {
				t.Errorf("the review is served from a definition")
			}
		})
	}
}
