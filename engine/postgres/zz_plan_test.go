package postgres

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
)

func TestZZPlan(t *testing.T) {
	url := os.Getenv("PLAN_URL")
	if url == "" {
		return
	}
	conn, err := pgx.Connect(context.Background(), url+" jit=off")
	if err != nil {
		t.Fatal(err)
	}
	pipes := engine.GroupResource{Group: "example.com", Resource: "pipes"}
	sel := []engine.Requirement{{Key: "group", Operator: engine.OpEquals, Values: []string{"g7"}}}
	cases := []struct {
		name string
		opts engine.ListOptions
		st   listState
	}{
		{"latest 1%", engine.ListOptions{Resource: pipes, Labels: sel}, listState{latest: true, w: 100000}},
		{"at rv 1%", engine.ListOptions{Resource: pipes, Labels: sel}, listState{rv: 100000}},
		{"old rv 1%", engine.ListOptions{Resource: pipes, Labels: sel}, listState{rv: 90000}},
		{"latest all limit 500", engine.ListOptions{Resource: pipes, Limit: 500}, listState{latest: true, w: 100000}},
		{"continue", engine.ListOptions{Resource: pipes, Limit: 500}, listState{rv: 90000, after: &continueToken{RV: 90000, Namespace: "default", Name: "p5"}}},
		{"latest all", engine.ListOptions{Resource: pipes}, listState{latest: true, w: 100000}},
	}
	for _, c := range cases {
		plan, err := buildList(c.opts, c.st)
		if err != nil {
			t.Fatal(err)
		}
		for part, sql := range map[string]string{"changed": plan.changed, "unchanged": plan.unchanged} {
			args := plan.changedArgs
			if part == "unchanged" {
				args = plan.unchangedArgs
			}
			args[0] = c.st.rv
			if c.st.latest && part == "changed" {
				args[0] = c.st.w
			} else if c.st.latest {
				args[0] = 100000
			}
			for i := 0; i < 7; i++ { // past pgx's custom plans
				rows, _ := conn.Query(context.Background(), "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
				lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 || i == 6 {
					fmt.Printf("== %s %s (run %d)\n", c.name, part, i)
					for _, l := range lines {
						fmt.Println(l)
					}
				}
			}
		}
	}
}
