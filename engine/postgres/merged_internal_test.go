package postgres

import (
	"slices"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// groupWrites merges the creates of a batch into one statement and its
// updates into another, each where the first of its calls was, and leaves
// every other statement as it was.
func TestGroupWrites(t *testing.T) {
	write := func(sql, resource, name string) *call {
		row := &writeRow{resource: resource, name: name}
		return &call{st: statement{sql: sql, row: row, key: engine.ObjectKey{Resource: engine.GroupResource{Resource: resource}, Name: name}}}
	}
	create := func(resource, name string) *call { return write(createSQL, resource, name) }
	update := func(resource, name string) *call { return write(updateSQL, resource, name) }
	del := &call{st: statement{sql: deleteSQL, args: []any{"pipes", "", "d", int64(0)}}}
	tests := []struct {
		name  string
		calls []*call
		want  []string // the statements, in order, with their calls: "c2" is createsSQL for two
	}{
		{"one create and one update stay alone", []*call{create("pipes", "a"), update("pipes", "b"), del}, []string{"1", "1", "1"}},
		{"creates merge where the first was", []*call{del, create("pipes", "a"), del, create("valves", "b")}, []string{"1", "c2", "1"}},
		{"namespaces stay apart", []*call{create("namespaces", "n"), create("pipes", "a"), create("pipes", "b")}, []string{"1", "c2"}},
		{"a create beside a namespace's stays alone", []*call{create("namespaces", "n"), create("pipes", "a")}, []string{"1", "1"}},
		{"updates merge", []*call{update("pipes", "a"), create("pipes", "x"), update("pipes", "b"), create("pipes", "y")}, []string{"u2", "c2"}},
		{"an object updated twice stays apart", []*call{update("pipes", "a"), update("pipes", "a"), update("pipes", "b"), update("pipes", "c")},
			[]string{"1", "1", "u2"}},
		{"deletes merge", []*call{del, update("pipes", "a"),
			{st: statement{sql: deleteSQL, args: []any{"pipes", "", "e", int64(3)}, key: engine.ObjectKey{Name: "e"}}}}, []string{"d2", "1"}},
		{"a name created twice stays apart", []*call{create("pipes", "a"), create("pipes", "a"), create("pipes", "b"), update("pipes", "a")},
			[]string{"1", "1", "1", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, g := range groupWrites(tt.calls) {
				switch g.sql {
				case createsSQL, updatesSQL, deletesSQL:
					got = append(got, map[string]string{createsSQL: "c", updatesSQL: "u", deletesSQL: "d"}[g.sql]+string(rune('0'+len(g.calls))))
					if len(g.args[2].([]string)) != len(g.calls) {
						t.Errorf("the arguments %v do not hold one row per call", g.args)
					}
				default:
					got = append(got, string(rune('0'+len(g.calls))))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("statements %v, want %v", got, tt.want)
			}
		})
	}
}
