package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// TestTransientListReusesBodies checks both sides of
// engine.ListOptions.Transient: a transient list hands each the same
// bodies as any list, in memory it reuses from row to row, and a list
// that is not transient hands out bodies that nothing reuses, even while
// transient lists run after it.
func TestTransientListReusesBodies(t *testing.T) {
	// The pool the bodies go back to is emptied by the collector.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s := newStore(t)
	createNamespace(t, s, "reuse")
	const objects = 200
	for i := range objects {
		mustCreate(t, s, newObject(pipes, "reuse", fmt.Sprintf("p%03d", i), map[string]string{"i": fmt.Sprint(i)}))
	}
	opts := engine.ListOptions{Resource: pipes, Namespace: "reuse"}

	var kept, copies [][]byte // a list's bodies as handed out, and copies of them
	if _, err := s.List(context.Background(), opts, func(o engine.Object) error {
		kept, copies = append(kept, o.Body), append(copies, bytes.Clone(o.Body))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(kept) != objects {
		t.Fatalf("listed %d objects, want %d", len(kept), objects)
	}

	opts.Transient = true
	memory := map[*byte]bool{} // where each body was handed out
	reused := 0
	for range 3 {
		var got [][]byte
		if _, err := s.List(context.Background(), opts, func(o engine.Object) error {
			got = append(got, bytes.Clone(o.Body))
			if memory[&o.Body[0]] {
				reused++
			}
			memory[&o.Body[0]] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := range copies {
			if i >= len(got) || !bytes.Equal(got[i], copies[i]) {
				t.Fatalf("transient list: item %d differs from the same list's, or is missing (%d items)", i, len(got))
			}
		}
	}
	// A list reads ahead of its reader (a batch of rows at a time): the
	// bodies of one batch are reused by the next, or by the next list.
	if reused == 0 {
		t.Errorf("transient lists: no body's memory was reused across %d rows", 3*objects)
	}
	for i := range kept {
		if !bytes.Equal(kept[i], copies[i]) {
			t.Fatalf("a body handed out by a list that is not transient changed after transient lists:\n%s\nwant\n%s", kept[i], copies[i])
		}
	}
}
