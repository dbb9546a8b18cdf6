package postgres_test

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/encryption"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/tidwall/gjson"
)

var secrets = engine.GroupResource{Resource: "secrets"}

// Keys of the tests' configurations (32 bytes each, base64).
const (
	key1 = "c2VjcmV0IGlzIHNlY3VyZSwgb3IgaXMgaXQ/IDMyYnk="
	key2 = "YW5vdGhlciBzZWNyZXQga2V5IG9mIDMyIGJ5dGVzISE="
)

// encryptionConfig is an EncryptionConfiguration for secrets with providers.
func encryptionConfig(t *testing.T, providers string) *encryption.Config {
	t.Helper()
	c, err := encryption.Parse([]byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
` + providers))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func aescbc(keys ...string) string {
	out := "  - aescbc:\n      keys:\n"
	for _, k := range keys {
		secret := map[string]string{"key1": key1, "key2": key2}[k]
		out += "      - name: " + k + "\n        secret: " + secret + "\n"
	}
	return out
}

const identity = "  - identity: {}\n"

// openEncrypted opens a Store on databaseURL that encrypts as c says.
func openEncrypted(t *testing.T, databaseURL string, c *encryption.Config) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenWithOptions(context.Background(), databaseURL, postgres.Options{
		Encryption: func(gr engine.GroupResource) postgres.Transformer {
			if tr := c.For(gr); tr != nil {
				return tr
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// plaintext is in the Secret's data, its annotation and its remainder.
const plaintext = "hunter2"

// newSecret builds a Secret holding plaintext in each place a body can.
func newSecret(name string) engine.Object {
	b64 := base64.StdEncoding.EncodeToString([]byte(plaintext))
	body := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"` + name + `","namespace":"default","labels":{"app":"db"},` +
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"` + plaintext + `"}},"type":"Opaque","data":{"password":"` + b64 + `"}}`
	return engine.Object{Key: engine.ObjectKey{Resource: secrets, Namespace: "default", Name: name}, StoredVersion: "v1",
		Body: []byte(body), Remainder: []byte(`{"spec":{"lost":"` + plaintext + `"}}`)}
}

// rawRows returns every body and remainder of the objects and events
// tables as PostgreSQL holds them.
func rawRows(t *testing.T, databaseURL string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `
		SELECT body::text || coalesce(remainder::text, '') FROM objects WHERE resource = 'secrets'
		UNION ALL SELECT coalesce(body::text, '') || coalesce(prev_body::text, '') || coalesce(remainder::text, '') ||
			coalesce(prev_remainder::text, '') FROM events WHERE resource = 'secrets'`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantPlaintext fails unless obj holds the Secret's data, annotation and remainder.
func wantPlaintext(t *testing.T, what string, body, remainder []byte) {
	t.Helper()
	data := gjson.GetBytes(body, "data.password").String()
	annotation := gjson.GetBytes(body, `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`).String()
	if data != base64.StdEncoding.EncodeToString([]byte(plaintext)) || annotation != plaintext {
		t.Errorf("%s: body %s, want the Secret's data and annotation", what, body)
	}
	if remainder != nil && gjson.GetBytes(remainder, "spec.lost").String() != plaintext {
		t.Errorf("%s: remainder %s, want the plaintext", what, remainder)
	}
}

// TestEncryptedAtRest checks that a Secret's data, annotations and
// remainder are ciphertext in the objects and events tables, while Get,
// List (latest, at an older resourceVersion, by label, metadata only),
// Watch and Delete return them as written.
func TestEncryptedAtRest(t *testing.T) {
	url := pgtest.Open(t)
	s := openEncrypted(t, url, encryptionConfig(t, aescbc("key1")+identity))
	ctx := context.Background()
	createNamespace(t, s, "default")
	events := mustWatch(t, s, engine.WatchOptions{Resource: secrets, ResourceVersion: 0})
	created := mustCreate(t, s, newSecret("db"))
	wantPlaintext(t, "create", created.Body, created.Remainder)
	next := newSecret("db")
	next.ResourceVersion = created.ResourceVersion
	next.Body = []byte(strings.Replace(string(next.Body), `"Opaque"`, `"Opaque","immutable":false`, 1))
	updated, err := s.Update(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range rawRows(t, url) {
		if strings.Contains(raw, plaintext) || strings.Contains(raw, base64.StdEncoding.EncodeToString([]byte(plaintext))) {
			t.Errorf("plaintext in a stored row: %s", raw)
		}
		if !strings.Contains(raw, `"k8s:enc"`) {
			t.Errorf("stored row without ciphertext: %s", raw)
		}
	}
	got, err := s.Get(ctx, created.Key)
	if err != nil {
		t.Fatal(err)
	}
	wantPlaintext(t, "get", got.Body, got.Remainder)
	if bodyRV(got.Body) != bodyRV(updated.Body) || got.Stale {
		t.Errorf("get: resourceVersion %s, stale %v; want %s, false", bodyRV(got.Body), got.Stale, bodyRV(updated.Body))
	}
	for _, opts := range []engine.ListOptions{
		{Resource: secrets},
		{Resource: secrets, ResourceVersion: strconv.FormatInt(created.ResourceVersion, 10), ResourceVersionMatch: engine.MatchExact},
		{Resource: secrets, Labels: []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{"db"}}}},
		{Resource: secrets, ResourceVersion: strconv.FormatInt(created.ResourceVersion, 10), ResourceVersionMatch: engine.MatchExact,
			Labels: []engine.Requirement{{Key: "app", Operator: engine.OpIn, Values: []string{"db"}}}},
	} {
		list := listAll(t, s, opts)
		if len(list) != 1 {
			t.Fatalf("list %+v: %d objects, want 1", opts, len(list))
		}
		wantPlaintext(t, "list", list[0].Body, list[0].Remainder)
	}
	meta := listAll(t, s, engine.ListOptions{Resource: secrets, MetadataOnly: true})
	if len(meta) != 1 || gjson.GetBytes(meta[0].Body, "annotations.kubectl\\.kubernetes\\.io/last-applied-configuration").String() != plaintext ||
		gjson.GetBytes(meta[0].Body, "data").Exists() {
		t.Errorf("metadata-only list: %v, want the metadata with its annotations", meta)
	}
	deleted, err := s.Delete(ctx, engine.Object{Key: created.Key})
	if err != nil {
		t.Fatal(err)
	}
	wantPlaintext(t, "delete", deleted.Body, deleted.Remainder)
	for _, ev := range receive(t, events, 3, 10*time.Second) {
		if ev.Type == engine.EventError {
			t.Fatalf("watch: %v", ev.Err)
		}
		wantPlaintext(t, "watch "+string(ev.Type), ev.Object.Body, ev.Object.Remainder)
		if ev.Type != engine.EventAdded {
			wantPlaintext(t, "watch prev", ev.Prev, ev.PrevRemainder)
		}
	}
	replayed := mustWatch(t, s, engine.WatchOptions{Resource: secrets, ResourceVersion: created.ResourceVersion - 1})
	for _, ev := range receive(t, replayed, 3, 10*time.Second) {
		wantPlaintext(t, "replay "+string(ev.Type), ev.Object.Body, ev.Object.Remainder)
	}
}

// listAll lists opts whole.
func listAll(t *testing.T, s *postgres.Store, opts engine.ListOptions) []engine.Object {
	t.Helper()
	var out []engine.Object
	if _, err := s.List(context.Background(), opts, func(o engine.Object) error {
		out = append(out, o)
		return nil
	}); err != nil {
		t.Fatalf("list %+v: %v", opts, err)
	}
	return out
}

// storedCiphertext returns the kube ciphertext of the objects row of key
// ("" when its body is plaintext).
func storedCiphertext(t *testing.T, databaseURL string, key engine.ObjectKey) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var enc *string
	if err := conn.QueryRow(context.Background(), `SELECT body->>'k8s:enc' FROM objects WHERE resource = $1 AND namespace = $2 AND name = $3`,
		key.Resource.String(), key.Namespace, key.Name).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	if enc == nil {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(*enc)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestEncryptionKeyRotation checks kube's rotation: a configuration whose
// first key is new still reads rows of the old key, marked Stale, and a
// rewrite stores them with the new key; with identity first, writes are
// plaintext and encrypted rows still read.
func TestEncryptionKeyRotation(t *testing.T) {
	tests := []struct {
		name, providers string
		wantPrefix      string // of the rewritten row's ciphertext; "" for plaintext
	}{
		{"new key first", aescbc("key2", "key1") + identity, "k8s:enc:aescbc:v1:key2:"},
		{"identity first", identity + aescbc("key1"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.Open(t)
			ctx := context.Background()
			old := openEncrypted(t, url, encryptionConfig(t, aescbc("key1")))
			createNamespace(t, old, "default")
			created := mustCreate(t, old, newSecret("db"))
			if c := storedCiphertext(t, url, created.Key); !strings.HasPrefix(c, "k8s:enc:aescbc:v1:key1:") {
				t.Fatalf("stored %q, want key1's ciphertext", c)
			}
			old.Close()
			s := openEncrypted(t, url, encryptionConfig(t, tt.providers))
			got, err := s.Get(ctx, created.Key)
			if err != nil {
				t.Fatal(err)
			}
			wantPlaintext(t, "get", got.Body, got.Remainder)
			list := listAll(t, s, engine.ListOptions{Resource: secrets})
			if len(list) != 1 || !got.Stale || !list[0].Stale {
				t.Fatalf("stale: get %v, list of %d %v; want one, stale", got.Stale, len(list), len(list) == 1 && list[0].Stale)
			}
			if _, err := s.Update(ctx, got); err != nil { // what dynapi migrate does
				t.Fatal(err)
			}
			c := storedCiphertext(t, url, created.Key)
			if tt.wantPrefix == "" && c != "" || !strings.HasPrefix(c, tt.wantPrefix) {
				t.Fatalf("rewritten row holds %q, want prefix %q", c, tt.wantPrefix)
			}
			again, err := s.Get(ctx, created.Key)
			if err != nil || again.Stale {
				t.Fatalf("get after rewrite: stale %v, %v", again.Stale, err)
			}
			wantPlaintext(t, "get after rewrite", again.Body, again.Remainder)
		})
	}
}

// TestCiphertextBoundToItsRow checks that aesgcm's ciphertext, bound to
// the row's key, does not decrypt in another row.
func TestCiphertextBoundToItsRow(t *testing.T) {
	url := pgtest.Open(t)
	c, err := encryption.Parse([]byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aesgcm:
      keys: [{name: gcm, secret: "` + key1 + `"}]`))
	if err != nil {
		t.Fatal(err)
	}
	s := openEncrypted(t, url, c)
	ctx := context.Background()
	createNamespace(t, s, "default")
	a, b := mustCreate(t, s, newSecret("a")), mustCreate(t, s, newSecret("b"))
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE objects SET body = (SELECT body FROM objects WHERE name = 'a' AND resource = 'secrets')
		WHERE name = 'b' AND resource = 'secrets'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, a.Key); err != nil {
		t.Fatalf("get a: %v", err)
	}
	if got, err := s.Get(ctx, b.Key); err == nil {
		t.Fatalf("get b with a's ciphertext: %s, want an error", got.Body)
	}
}
