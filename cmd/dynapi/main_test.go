package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/connlimit"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/webhook"
)

// startPostgres gives a test its own throw-away PostgreSQL, or the one
// TEST_DATABASE_URL names.
func startPostgres(t *testing.T) (string, *pgserver.Server) {
	t.Helper()
	if url := os.Getenv("TEST_DATABASE_URL"); url != "" {
		return url, nil
	}
	pg, err := pgserver.Start(context.Background(), pgserver.Options{Ephemeral: true})
	if err != nil {
		t.Fatalf("start PostgreSQL for the test: %v", err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	return pg.URL(), pg
}

// startMain runs dynapi as `dynapi serve` would, on a free port, until
// the test ends.
func startMain(t *testing.T, cfg Config) *Main {
	t.Helper()
	m := runMain(t, cfg)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// runMain is startMain for a test that closes the Main itself.
func runMain(t *testing.T, cfg Config) *Main {
	t.Helper()
	return runMainLogged(t, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// runMainLogged is runMain logging to logger.
func runMainLogged(t *testing.T, cfg Config, logger *slog.Logger) *Main {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if cfg.Schemas == "" {
		cfg.Schemas = "../../schemas"
	}
	if cfg.Conversions == "" {
		cfg.Conversions = "../../conversions"
	}
	m := &Main{Config: cfg, Logger: logger}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestReadyzFollowsTheDatabase(t *testing.T) {
	if os.Getenv("TEST_DATABASE_URL") != "" {
		t.Log("TEST_DATABASE_URL set: using a private server for this test, since it stops the database")
	}
	pg, err := pgserver.Start(context.Background(), pgserver.Options{Ephemeral: true})
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	m := startMain(t, Config{DatabaseURL: pg.URL()})
	base := "http://" + m.Addr()
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz = %d %s", code, body)
	}
	if err := pg.Stop(); err != nil {
		t.Fatalf("stop PostgreSQL: %v", err)
	}
	if code, _ := httpGet(t, base+"/readyz"); code != http.StatusInternalServerError {
		t.Fatalf("/readyz with the database down = %d, want 500 as kube-apiserver's", code)
	}
	if code, _ := httpGet(t, base+"/livez"); code != http.StatusOK {
		t.Fatalf("/livez with the database down = %d, want 200", code)
	}
	// Requests say the storage is down and when to try again, which
	// client-go does on its own, instead of an internal error.
	resp, err := http.Get(base + "/api/v1/namespaces/default")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" ||
		!strings.Contains(string(body), `"reason":"ServiceUnavailable"`) {
		t.Fatalf("GET with the database down = %d (Retry-After %q) %s; want 503 with Retry-After 1",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

func TestPrivatePostgres(t *testing.T) {
	dataDir := t.TempDir()
	// Run as root, the cluster may live outside dataDir (see pgserver's
	// Options.DataDir); removed after the server stops.
	t.Cleanup(func() {
		if err := pgserver.Remove(dataDir); err != nil {
			t.Error(err)
		}
	})
	m := startMain(t, Config{DataDir: dataDir})
	code, body := httpGet(t, "http://"+m.Addr()+"/api/v1/namespaces/default")
	if code != http.StatusOK || !strings.Contains(body, `"name":"default"`) {
		t.Fatalf("default namespace: %d %s", code, body)
	}
	if _, err := os.Stat(dataDir + "/pgdata/PG_VERSION"); err != nil {
		t.Fatalf("private PostgreSQL not in --data-dir: %v", err)
	}

	// `dynapi migrate` beside the running server uses its PostgreSQL.
	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "--data-dir", dataDir, "--schemas", "../../schemas", "--conversions", "../../conversions"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("dynapi migrate beside the server: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "pipes.plumbing.example.com: no objects") {
		t.Errorf("dynapi migrate printed %q", stdout.String())
	}
	if code, body := httpGet(t, "http://"+m.Addr()+"/api/v1/namespaces/default"); code != http.StatusOK {
		t.Fatalf("server after migrate: %d %s", code, body)
	}

	// A second server on the same --data-dir says what to do instead.
	args = []string{"--data-dir", dataDir, "--listen", "127.0.0.1:0", "--schemas", "../../schemas", "--conversions", "../../conversions"}
	err := run(context.Background(), args, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already running, for another dynapi") || !strings.Contains(err.Error(), "--database-url 'postgres://") {
		t.Fatalf("second server on the data dir: %v", err)
	}
	if code, body := httpGet(t, "http://"+m.Addr()+"/api/v1/namespaces/default"); code != http.StatusOK {
		t.Fatalf("first server after the second was refused: %d %s", code, body)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name                 string
		schemas, conversions string
		wantErr              bool
		want                 []string
	}{
		{"shipped definitions", "../../schemas", "../../conversions", false, []string{
			"ok: 4 definition(s) in ../../schemas and 21 built in, 1 with conversion rules in ../../conversions, every conversion with rules proved"}},
		{"broken definitions", "testdata/broken", "testdata/no-rules", true, []string{
			"testdata/broken/syntax.yaml:", "testdata/broken/two-storage.yaml", "storage", "2 problem(s) found"}},
		{"broken rules", "testdata/rules/schemas", "testdata/rules/conversions", true, []string{
			`testdata/rules/conversions/tube.yaml: Tube.test.example.com: versions.v1.toHub[0]: move: from "spec.bor": v1 has no such field`,
			`testdata/rules/conversions/tube.yaml: Tube.test.example.com: versions.v1.toHub[1]: mapValues: values are not a bijection: "gloss" and "matt" both map to "Matt"`,
			"testdata/rules/schemas/tube.yaml: Tube.test.example.com: refused: its conversion rules in tube.yaml were refused",
			"testdata/rules/conversions/hose.yaml: spec.length: the round trip v1 → v2 → ",
			"changes the field: was 0.25, got 0 (rules: versions.v1.toHub[0]: coerce {path: spec.length, to: integer, from: number}; ",
			"4 problem(s) found"}},
		{"no conversions folder", "../../schemas", "testdata/nowhere", false, []string{"warning: testdata/nowhere: no such folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), []string{"check", "--schemas", tt.schemas, "--conversions", tt.conversions}, &out, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("check error = %v, wantErr %v\n%s", err, tt.wantErr, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestConfigFromFlagsAndEnv(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://env", "DYNAPI_LISTEN": "127.0.0.1:9999"}
	cfg, err := parseConfig("serve", []string{"--schemas", "/s", "--database-url", "postgres://flag"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{DatabaseReadMaxLag: 100 * time.Millisecond, EventRetention: 5 * time.Minute, WatchBookmarkInterval: 10 * time.Second, Listen: "127.0.0.1:9999", DatabaseURL: "postgres://flag", Schemas: "/s", Conversions: "./conversions", DataDir: "./.dynapi",
		SchemaChangePolicy: "report", GCPercent: 200, MigrateBatch: 500, WriteCacheMB: 8, MaxOpenConnections: connlimit.DefaultLimit(), FirstRequestTimeout: defaultFirstRequestTimeout,
		CountMetricPollPeriod: time.Minute, Log: LogConfig{Format: logText, Level: slog.LevelInfo}, Bootstrap: true,
		WebhookServiceResolver: webhook.DefaultServiceTemplate, Security: SecurityConfig{AuthorizationMode: modeAlwaysAllow,
			OIDC: authn.OIDCOptions{UsernameClaim: "sub"}, MaxRequestsInflight: 400, MaxMutatingInflight: 200,
			RequestTimeout: time.Minute, MinRequestTimeout: 1800,
			AuditLog: audit.Options{MaxSizeMB: 100, MaxBackups: 10}}}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("config = %+v, want %+v", cfg, want)
	}
	// kube's list flags: repeated or comma-separated.
	sa, err := parseConfig("serve", []string{"--service-account-issuer", "https://a", "--service-account-issuer", "https://b,https://c",
		"--service-account-key-file", "k1", "--service-account-key-file", "k2"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := sa.Security.ServiceAccounts; !slices.Equal(got.Issuers, []string{"https://a", "https://b", "https://c"}) || !slices.Equal(got.KeyFiles, []string{"k1", "k2"}) {
		t.Fatalf("service account flags: %+v", got)
	}
	env = map[string]string{"GOGC": "100"} // Go applied it already
	if cfg, err = parseConfig("serve", nil, func(k string) string { return env[k] }, io.Discard); err != nil {
		t.Fatal(err)
	}
	if cfg.GCPercent != 0 {
		t.Fatalf("with GOGC set: GCPercent %d; want it left to GOGC (0)", cfg.GCPercent)
	}
	if _, err := parseConfig("serve", []string{"--tls-cert-file", "c"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("a certificate without a key was accepted")
	}

	// Environment values are parsed as the flags' own: a bad one is an
	// error, unless the command line gives the flag.
	tests := []struct {
		env     map[string]string
		args    []string
		wantErr string
		want    func(Config) bool
	}{
		{env: map[string]string{"DYNAPI_EVENT_RETENTION": "abc"}, wantErr: `invalid value "abc" for DYNAPI_EVENT_RETENTION`},
		{env: map[string]string{"DYNAPI_PROFILING": "yes"}, wantErr: `invalid value "yes" for DYNAPI_PROFILING`},
		{env: map[string]string{"DYNAPI_EVENT_RETENTION": "abc"}, args: []string{"--event-retention", "1m"},
			want: func(c Config) bool { return c.EventRetention == time.Minute }},
		{env: map[string]string{"DATABASE_READ_URL": "postgres://a;host=b,c dbname=d"},
			want: func(c Config) bool {
				return slices.Equal(readURLs(c.DatabaseReadURLs), []string{"postgres://a", "host=b,c dbname=d"})
			}},
		{args: []string{"--database-read-url", "postgres://a", "--database-read-url", "postgres://b", "--database-read-max-lag", "1s"},
			want: func(c Config) bool {
				return slices.Equal(readURLs(c.DatabaseReadURLs), []string{"postgres://a", "postgres://b"}) && c.DatabaseReadMaxLag == time.Second
			}},
		{env: map[string]string{"DYNAPI_WRITE_CACHE_MB": "0"}, want: func(c Config) bool { return c.WriteCacheMB == 0 }},
		{env: map[string]string{"DYNAPI_EVENT_RETENTION": "90s", "DYNAPI_PROFILING": "1"},
			want: func(c Config) bool { return c.EventRetention == 90*time.Second && c.Profiling }},
	}
	for _, tt := range tests {
		cfg, err := parseConfig("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("env %v args %v: error %v; want %q", tt.env, tt.args, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !tt.want(cfg)):
			t.Errorf("env %v args %v: %+v, %v", tt.env, tt.args, cfg, err)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://user:secret@db:5432/dynapi?sslmode=disable", "postgres://user:xxxxx@db:5432/dynapi?sslmode=disable"},
		{"postgres://user@db/dynapi", "postgres://user@db/dynapi"},
		{"host=/tmp port=5499 user=postgres dbname=bench", "host=/tmp port=5499 user=postgres dbname=bench"},
		{"host=db password=secret user=x", "host=db password=xxxxx user=x"},
		{"host=db password = 'a b\\' c' user=x", "host=db password = xxxxx user=x"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
