package crd

import (
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// A create of a kind whose definition is being deleted is refused in
// apiextensions-apiserver's words (apierrors.NewForbidden, which leaves the
// name out when there is none yet); other kinds, and the kind once the
// definition is gone or was listed again unmarked, are let through.
func TestTerminatingGuard(t *testing.T) {
	marked := []byte(`{"metadata":{"name":"crontabs.stable.example.com","deletionTimestamp":"2026-01-01T00:00:00Z"}}`)
	unmarked := []byte(`{"metadata":{"name":"crontabs.stable.example.com"}}`)
	crontabs := engine.GroupResource{Group: "stable.example.com", Resource: "crontabs"}
	tests := []struct {
		name  string
		setup func(*terminating)
		gr    engine.GroupResource
		obj   string
		want  string // the message; "" lets it through
	}{
		{"named", func(t *terminating) { t.note(marked) }, crontabs, "nightly",
			`crontabs.stable.example.com "nightly" is forbidden: create not allowed while custom resource definition is terminating`},
		{"generated name", func(t *terminating) { t.note(marked) }, crontabs, "",
			`crontabs.stable.example.com is forbidden: create not allowed while custom resource definition is terminating`},
		{"another kind", func(t *terminating) { t.note(marked) }, engine.GroupResource{Group: "stable.example.com", Resource: "widgets"}, "w", ""},
		{"not marked", func(t *terminating) { t.note(unmarked) }, crontabs, "nightly", ""},
		{"gone", func(t *terminating) { t.note(marked); t.forget("crontabs.stable.example.com") }, crontabs, "nightly", ""},
		{"listed unmarked", func(t *terminating) {
			t.note(marked)
			t.reset(map[string][]byte{"crontabs.stable.example.com": unmarked})
		}, crontabs, "nightly", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var set terminating
			tt.setup(&set)
			err := set.guard(tt.gr, tt.obj)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if engine.ErrorCode(err) != engine.CodeForbidden || err.Error() != tt.want {
				t.Fatalf("got %v (%s), want Forbidden %q", err, engine.ErrorCode(err), tt.want)
			}
		})
	}
}
