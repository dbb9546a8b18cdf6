package postgres_test

import (
	"context"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/jackc/pgx/v5"
)

func TestBaseline(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Open(t)
	b, err := postgres.OpenBaseline(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{
		"a": []byte(`{"metadata":{"name":"a","labels":{"bucket":"1"}},"spec":{"size":1}}`),
		"b": []byte(`{"metadata":{"name":"b","labels":{"bucket":"2"}},"spec":{"size":2}}`),
	}
	for name, body := range bodies {
		if err := b.Insert(ctx, name, body); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, b.Insert(ctx, "a", bodies["a"]), engine.CodeAlreadyExists)
	if got, err := b.Get(ctx, "a"); err != nil || !jsoneq.Equal(got, bodies["a"]) {
		t.Fatalf("Get = %s, %v; want %s", got, err, bodies["a"])
	}
	moved := []byte(`{"metadata":{"name":"a","labels":{"bucket":"2"}},"spec":{"size":9}}`)
	if err := b.Update(ctx, "a", moved); err != nil {
		t.Fatal(err)
	}
	wantList(t, b, map[string]string{"bucket": "2"}, 2)
	wantList(t, b, map[string]string{"bucket": "1"}, 0)
	wantList(t, b, nil, 2)
	if err := b.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	_, err = b.Get(ctx, "a")
	wantCode(t, err, engine.CodeNotFound)
	wantCode(t, b.Update(ctx, "a", moved), engine.CodeNotFound)
	wantCode(t, b.Delete(ctx, "a"), engine.CodeNotFound)
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := baselineTables(t, url); n != 0 {
		t.Fatalf("%d baseline table(s) left after Close", n)
	}
}

func wantList(t *testing.T, b *postgres.Baseline, labels map[string]string, want int) {
	t.Helper()
	if n, err := b.List(context.Background(), labels); err != nil || n != want {
		t.Fatalf("List(%v) = %d, %v; want %d", labels, n, err, want)
	}
}

// baselineTables counts the scratch tables in the database at url.
func baselineTables(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	err = conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE tablename LIKE 'baseline\_%'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
