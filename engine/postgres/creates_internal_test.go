package postgres

import (
	"slices"
	"testing"
)

// groupCreates merges the creates of a batch into one statement, where
// the first of them was, and leaves every other statement as it was.
func TestGroupCreates(t *testing.T) {
	create := func(resource, name string) *call {
		row := &createRow{resource: resource, name: name}
		return &call{st: statement{sql: createSQL, args: row.args(), create: row}}
	}
	update := &call{st: statement{sql: updateSQL}}
	tests := []struct {
		name  string
		calls []*call
		want  []int // the number of calls of each group, in order; a merged group is negative
	}{
		{"one create stays alone", []*call{create("pipes", "a"), update}, []int{1, 1}},
		{"creates merge where the first was", []*call{update, create("pipes", "a"), update, create("valves", "b")}, []int{1, -2, 1}},
		{"namespaces stay apart", []*call{create("namespaces", "n"), create("pipes", "a"), create("pipes", "b")}, []int{1, -2}},
		{"a create beside a namespace's stays alone", []*call{create("namespaces", "n"), create("pipes", "a")}, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, g := range groupCreates(tt.calls) {
				n := len(g.calls)
				if g.sql == createsSQL {
					n = -n
					if len(g.args) != 12 || len(g.args[2].([]string)) != len(g.calls) {
						t.Errorf("createsSQL's arguments %v do not hold one row per create", g.args)
					}
				}
				got = append(got, n)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("groups %v, want %v", got, tt.want)
			}
		})
	}
}
