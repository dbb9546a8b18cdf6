package resource

import (
	"os"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// TestGenerationFromDiff: where the managedFields shortcut's walk saw the
// whole update, its answer to "did anything but metadata (and status)
// change" is the comparison's, which the generation stage then skips.
func TestGenerationFromDiff(t *testing.T) {
	r, v := shippedWidget(t)
	const old = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
		`"labels":{"app":"a"},"resourceVersion":"5","generation":2},"spec":{"color":"red","size":3,"description":"café",` +
		`"dimensions":{"width":1.5}},"status":{"phase":"Ready"}}`
	tests := []struct {
		name, from, to string
		complete       bool // the walk names every difference
	}{
		{"nothing", "", "", true},
		{"resourceVersion only", `"resourceVersion":"5"`, `"resourceVersion":"6"`, true},
		{"a scalar of spec", `"size":3`, `"size":4`, true},
		{"a nested scalar", `"width":1.5`, `"width":2.5`, true},
		{"the same string escaped", `"café"`, `"caf\u00e9"`, true},
		{"the same number written otherwise", `"size":3`, `"size":3.0`, true},
		{"a label", `"app":"a"`, `"app":"b"`, true},
		{"a label added", `"app":"a"`, `"app":"a","tier":"x"`, true},
		{"status, its own subresource", `"phase":"Ready"`, `"phase":"Failed"`, true},
		{"a member added to spec", `"size":3`, `"size":3,"tags":["x"]`, false},
		{"a member removed", `"size":3,`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := []byte(strings.Replace(old, tt.from, tt.to, 1))
			_, _, diff, err := r.Fields.Shortcut(v.Name, "", []byte(old), nil, obj, nil, "m")
			if err != nil {
				t.Fatal(err)
			}
			if diff.Complete != tt.complete {
				t.Fatalf("complete = %v, want %v (%+v)", diff.Complete, tt.complete, diff)
			}
			ignore := []string{"metadata", "status"}
			if diff.Complete && diff.Outside(ignore...) == sameJSON(obj, []byte(old), ignore...) {
				t.Fatalf("the walk says changed=%v, the comparison says equal=%v (%+v)",
					diff.Outside(ignore...), sameJSON(obj, []byte(old), ignore...), diff)
			}
		})
	}
}

// shippedWidget is shop.example.com's Widget at v1, as schemas/ ships it.
func shippedWidget(tb testing.TB) (*registry.Resource, *registry.Version) {
	tb.Helper()
	r, v, ok := shipped(tb).Lookup("shop.example.com", "v1", "widgets")
	if !ok {
		tb.Fatal("no Widget in schemas/")
	}
	return r, v
}

// shipped is the definitions and conversions the repository ships.
func shipped(tb testing.TB) *registry.Snapshot {
	tb.Helper()
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		tb.Fatal(problems)
	}
	return snap
}
