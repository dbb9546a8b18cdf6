package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/migrations"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tidwall/gjson"
)

// migrate runs Migrate with a pool of its own, as a separate process would.
func migrate(t *testing.T, databaseURL string, fsys fstest.MapFS) error {
	pool, err := pgxpool.New(context.Background(), databaseURL)
	if err != nil {
		t.Error(err)
		return err
	}
	defer pool.Close()
	return postgres.Migrate(context.Background(), pool, fsys)
}

// queryStrings returns the first column of every row of sql.
func queryStrings(t *testing.T, databaseURL, sql string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, _ := conn.Query(context.Background(), sql)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMigrateIdempotent(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	for range 2 {
		if err := s.Migrate(context.Background(), migrations.FS); err != nil {
			t.Fatal(err)
		}
	}
	got := queryStrings(t, url, "SELECT name FROM schema_migrations ORDER BY name")
	if len(got) == 0 || got[0] != "0001_objects.sql" {
		t.Errorf("schema_migrations = %q; want 0001_objects.sql first", got)
	}
}

func TestMigrateConcurrently(t *testing.T) {
	url := pgtest.Open(t)
	fsys := fstest.MapFS{
		"9001_a.sql": {Data: []byte("CREATE TABLE extra_a (id int);")},
		"9002_b.sql": {Data: []byte("CREATE TABLE extra_b (id int); INSERT INTO extra_b VALUES (1);")},
		"README.md":  {Data: []byte("not a migration")},
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := migrate(t, url, fsys); err != nil {
				t.Errorf("concurrent Migrate: %v", err)
			}
		})
	}
	wg.Wait()
	if got := queryStrings(t, url, "SELECT id::text FROM extra_b"); len(got) != 1 {
		t.Errorf("extra_b rows = %q; want one: 9002_b.sql ran %d times", got, len(got))
	}
	got := queryStrings(t, url, "SELECT name FROM schema_migrations WHERE name LIKE '9%' ORDER BY name")
	if strings.Join(got, ",") != "9001_a.sql,9002_b.sql" {
		t.Errorf("recorded = %q", got)
	}
}

func TestMigrateFailureRollsBack(t *testing.T) {
	url := pgtest.Open(t)
	fsys := fstest.MapFS{
		"9001_ok.sql":  {Data: []byte("CREATE TABLE ok_t (id int);")},
		"9002_bad.sql": {Data: []byte("CREATE TABLE half (id int); SELECT 1/0;")},
	}
	err := migrate(t, url, fsys)
	if err == nil || !strings.Contains(err.Error(), "apply migration 9002_bad.sql") {
		t.Fatalf("Migrate = %v; want an error naming 9002_bad.sql", err)
	}
	got := queryStrings(t, url, "SELECT name FROM schema_migrations WHERE name LIKE '9%' UNION ALL "+
		"SELECT relname::text FROM pg_class WHERE relname IN ('ok_t', 'half')")
	if strings.Join(got, ",") != "9001_ok.sql,ok_t" {
		t.Errorf("after failure: %q; want only 9001_ok.sql applied", got)
	}
	fsys["9002_bad.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE half (id int);")}
	if err := migrate(t, url, fsys); err != nil {
		t.Errorf("Migrate after the fix: %v", err)
	}
}

// TestLabelIndexesKeepShortPendingLists: selectors scan a GIN index's whole
// pending list, so the label indexes keep it short (0004_gin_pending_list.sql).
func TestLabelIndexesKeepShortPendingLists(t *testing.T) {
	url := pgtest.Open(t)
	if err := openStore(t, url).Migrate(context.Background(), migrations.FS); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, url, `SELECT relname || ' ' || array_to_string(reloptions, ',') FROM pg_class
		WHERE relname IN ('objects_labels', 'objects_label_keys') ORDER BY relname`)
	want := "[objects_label_keys gin_pending_list_limit=512 objects_labels gin_pending_list_limit=512]"
	if fmt.Sprint(got) != want {
		t.Errorf("label index options = %v; want %s", got, want)
	}
}

// TestLargeBodiesCompressWithLZ4: a body PostgreSQL compresses is
// compressed with lz4 where the server has it (migrations/0007), with its
// default pglz elsewhere; and it reads back as it was written.
func TestLargeBodiesCompressWithLZ4(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	if err := s.Migrate(context.Background(), migrations.FS); err != nil {
		t.Fatal(err)
	}
	want := "pglz"
	if lz4 := queryStrings(t, url, `SELECT 'lz4' FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`); len(lz4) == 1 {
		want = "lz4"
	}
	obj := newObject(pipes, "", "large", nil)
	obj.Body = []byte(strings.Replace(string(obj.Body), `"size":3`, `"size":3,"text":"`+strings.Repeat("a compressible sentence. ", 400)+`"`, 1))
	mustCreate(t, s, obj)
	if got := queryStrings(t, url, `SELECT coalesce(pg_column_compression(body), 'none') FROM objects WHERE name = 'large'`); len(got) != 1 || got[0] != want {
		t.Fatalf("objects.body compressed with %q, want %q", got, want)
	}
	if got := queryStrings(t, url, `SELECT coalesce(pg_column_compression(body), 'none') FROM events WHERE name = 'large'`); len(got) != 1 || got[0] != want {
		t.Fatalf("events.body compressed with %q, want %q", got, want)
	}
	read, err := s.Get(context.Background(), obj.Key)
	if text := gjson.GetBytes(read.Body, "spec.text").Str; err != nil || text != gjson.GetBytes(obj.Body, "spec.text").Str {
		t.Fatalf("read back %d bytes of spec.text (%v), wrote %d", len(text), err, len(gjson.GetBytes(obj.Body, "spec.text").Str))
	}
}
