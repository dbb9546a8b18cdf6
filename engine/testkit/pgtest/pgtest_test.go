package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestWithDatabase(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"postgres://u:p@db:5432/postgres?sslmode=disable", "postgres://u:p@db:5432/x?sslmode=disable"},
		{"postgresql://u@/postgres?host=%2Ftmp%2Fs", "postgresql://u@/x?host=%2Ftmp%2Fs"},
		{"host=/tmp/s user=postgres dbname=postgres", "host=/tmp/s user=postgres dbname=postgres dbname=x"},
	}
	for _, tt := range tests {
		got, err := withDatabase(tt.in, "x")
		if err != nil || got != tt.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestOpen checks that each call gets its own migrated database.
func TestOpen(t *testing.T) {
	seen := map[string]bool{}
	for range 2 {
		conn, err := pgx.Connect(context.Background(), Open(t))
		if err != nil {
			t.Fatal(err)
		}
		var db string
		var migrated bool
		err = conn.QueryRow(context.Background(),
			"SELECT current_database(), to_regclass('objects') IS NOT NULL AND to_regclass('events') IS NOT NULL").Scan(&db, &migrated)
		conn.Close(context.Background())
		if err != nil || !migrated || seen[db] {
			t.Fatalf("database %q migrated %v (seen before: %v): %v", db, migrated, seen[db], err)
		}
		seen[db] = true
	}
}
