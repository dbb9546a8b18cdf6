package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/internal/jsoneq"
	"github.com/dynapi/dynapi/engine/postgres"
)

// TestMetadataOnlyList checks that a metadata-only list gives each
// object's metadata, compact and as of the list's state: the newest (read
// from the text printed at each write) and an older one (cut out of the
// log's bodies).
func TestMetadataOnlyList(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	createNamespace(t, s, "default")
	var created []engine.Object
	for _, name := range []string{"a", "b"} {
		o, err := s.Create(ctx, newObject(pipes, "default", name, map[string]string{"v": "1"}))
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, o)
	}
	changed := newObject(pipes, "default", "a", map[string]string{"v": "2"})
	changed.ResourceVersion = created[0].ResourceVersion
	updated, err := s.Update(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		rv   int64
		want []engine.Object
	}{
		{"newest", 0, []engine.Object{updated, created[1]}},
		{"before the update", created[1].ResourceVersion, created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := engine.ListOptions{Resource: pipes, Namespace: "default", MetadataOnly: true}
			if tt.rv > 0 {
				opts.ResourceVersion, opts.ResourceVersionMatch = strconv.FormatInt(tt.rv, 10), engine.MatchExact
			}
			var got []string
			if _, err := s.List(ctx, opts, func(o engine.Object) error { got = append(got, string(o.Body)); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d objects, want %d: %v", len(got), len(tt.want), got)
			}
			for i, o := range tt.want {
				jsoneq.Assert(t, got[i], gjson.GetBytes(o.Body, "metadata").Raw)
				if strings.Contains(got[i], `": `) || strings.Contains(got[i], `, "`) {
					t.Errorf("metadata of %s not compact: %s", o.Key.Name, got[i])
				}
			}
		})
	}
}

// TestMetadataOnlyListReadsPrintedText checks that the newest objects'
// metadata is read as printed at their last write, not cut out of each
// body and printed at every list (see migrations/0007_metadata_text.sql).
func TestMetadataOnlyListReadsPrintedText(t *testing.T) {
	s := newStore(t)
	out, err := postgres.UnchangedOutput(context.Background(), s, engine.ListOptions{Resource: pipes, MetadataOnly: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "COALESCE(metadata,") || strings.Contains(out, "body ->") {
		t.Errorf("the metadata-only list does not read the printed metadata:\n%s", out)
	}
}
