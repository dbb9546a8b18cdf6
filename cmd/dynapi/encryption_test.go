package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestEncryptionAtRestAndMigrate writes a Secret with encryption on: its
// rows hold no plaintext and the API returns it; after a new key is put
// first, the server still reads it, and `dynapi migrate` rewrites it with
// the new key.
func TestEncryptionAtRestAndMigrate(t *testing.T) {
	url, _ := startPostgres(t)
	dir := t.TempDir()
	key1 := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	key2 := base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	config := func(name string, keys ...string) string {
		text := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n"
		for _, k := range keys {
			text += "      - {name: " + map[string]string{key1: "key1", key2: "key2"}[k] + ", secret: " + k + "}\n"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	first, rotated := config("first.yaml", key1), config("rotated.yaml", key2, key1)
	secretPath := "/api/v1/namespaces/default/secrets/db"
	m := runMain(t, Config{DatabaseURL: url, EncryptionProviderConfig: first})
	mustDo(t, http.StatusCreated, http.MethodPost, "http://"+m.Addr()+"/api/v1/namespaces/default/secrets",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"hunter2"}}`)
	if got := mustDo(t, http.StatusOK, http.MethodGet, "http://"+m.Addr()+secretPath, ""); !strings.Contains(got, `"password":"aHVudGVyMg=="`) {
		t.Errorf("GET %s = %s, want the password", secretPath, got)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	wantStoredKey(t, url, "key1")

	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "--database-url", url, "--schemas", "../../schemas", "--conversions", "../../conversions",
		"--encryption-provider-config", rotated}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("dynapi migrate: %v\n%s", err, stderr.String())
	}
	if want := "secrets: stored in v1=1; rewrote 1 into v1, skipped 0\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("dynapi migrate printed:\n%s\nwant a line %q", stdout.String(), want)
	}
	wantStoredKey(t, url, "key2")
	m = startMain(t, Config{DatabaseURL: url, EncryptionProviderConfig: rotated})
	if got := mustDo(t, http.StatusOK, http.MethodGet, "http://"+m.Addr()+secretPath, ""); !strings.Contains(got, `"password":"aHVudGVyMg=="`) {
		t.Errorf("GET %s after migrate = %s, want the password", secretPath, got)
	}
}

// wantStoredKey checks that the Secret's row is encrypted with key, and
// that no row of secrets, objects or events, holds its password.
func wantStoredKey(t *testing.T, url, key string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var enc string
	if err := conn.QueryRow(ctx, `SELECT body->>'k8s:enc' FROM objects WHERE resource = 'secrets' AND name = 'db'`).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if raw, _ := base64.StdEncoding.DecodeString(enc); !strings.HasPrefix(string(raw), "k8s:enc:aescbc:v1:"+key+":") {
		t.Errorf("stored ciphertext starts %.30q, want %s's", raw, key)
	}
	var leaks int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT body::text AS t FROM objects WHERE resource = 'secrets'
		UNION ALL SELECT coalesce(body::text, '') || coalesce(prev_body::text, '') FROM events WHERE resource = 'secrets') r
		WHERE t LIKE '%hunter2%' OR t LIKE '%aHVudGVyMg==%'`).Scan(&leaks); err != nil {
		t.Fatal(err)
	}
	if leaks > 0 {
		t.Errorf("%d rows of secrets hold the password in plaintext", leaks)
	}
}
