package satoken

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"
)

// stored is the one ServiceAccount the tests' Lookup knows: ops/robot.
type stored struct {
	uid      string
	deleting bool
}

func (s stored) lookup(_ context.Context, namespace, name string) (string, bool, error) {
	if namespace != "ops" || name != "robot" {
		return "", false, errors.New(`serviceaccounts "` + name + `" not found`)
	}
	return s.uid, s.deleting, nil
}

func newTestTokens(t *testing.T, now *time.Time, sa stored, keyPEM []byte, more ...[]byte) *Tokens {
	t.Helper()
	key, err := ParsePrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Issuers: []string{"https://issuer", "https://old-issuer"}, SigningKey: key, Lookup: sa.lookup,
		Now: func() time.Time { return *now }}
	for _, m := range more {
		pubs, err := ParsePublicKeys(m)
		if err != nil {
			t.Fatal(err)
		}
		opts.PublicKeys = append(opts.PublicKeys, pubs...)
	}
	tokens, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tokens
}

func mustKey(t *testing.T) []byte {
	t.Helper()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ecKey is a PKCS#8 P-256 key, kube's other kind of signing key.
func ecKey(t *testing.T) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// TestVerify: what kube's service-account authenticator accepts and
// refuses, and why.
func TestVerify(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	current, rotated, foreign := mustKey(t), ecKey(t), mustKey(t)
	issue := func(key []byte, namespace, name, uid string, audiences []string) string {
		now := start
		token, _, _, err := newTestTokens(t, &now, stored{uid: "u1"}, key).Issue(namespace, name, uid, audiences, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	api := []string{"https://issuer"}
	tests := []struct {
		name      string
		token     string
		after     time.Duration
		sa        stored
		audiences []string
		ours      bool
		err       string // "" when valid
	}{
		{"valid", issue(current, "ops", "robot", "u1", api), 0, stored{uid: "u1"}, nil, true, ""},
		{"valid until it expires", issue(current, "ops", "robot", "u1", api), 59 * time.Minute, stored{uid: "u1"}, nil, true, ""},
		// kube's validation allows a minute of clock skew.
		{"within the leeway", issue(current, "ops", "robot", "u1", api), 60*time.Minute + 59*time.Second, stored{uid: "u1"}, nil, true, ""},
		{"expired", issue(current, "ops", "robot", "u1", api), 61*time.Minute + time.Second, stored{uid: "u1"}, nil, true, "service account token has expired"},
		{"signed by a rotated key given as a public key", issue(rotated, "ops", "robot", "u1", api), 0, stored{uid: "u1"}, nil, true, ""},
		{"signed by a foreign key", issue(foreign, "ops", "robot", "u1", api), 0, stored{uid: "u1"}, nil, true, "invalid signature"},
		{"re-created ServiceAccount", issue(current, "ops", "robot", "u1", api), 0, stored{uid: "u2"}, nil, true,
			"service account UID (u2) does not match claim (u1)"},
		{"ServiceAccount being deleted", issue(current, "ops", "robot", "u1", api), 0, stored{uid: "u1", deleting: true}, nil, true,
			"service account ops/robot has been deleted"},
		{"ServiceAccount gone", issue(current, "ops", "gone", "u1", api), 0, stored{uid: "u1"}, nil, true, `serviceaccounts "gone" not found`},
		{"not for the API", issue(current, "ops", "robot", "u1", []string{"vault"}), 0, stored{uid: "u1"}, nil, true,
			`token audiences ["vault"] is invalid for the target audiences ["https://issuer" "https://old-issuer"]`},
		{"for the audience a review asks", issue(current, "ops", "robot", "u1", []string{"vault"}), 0, stored{uid: "u1"}, []string{"vault"}, true, ""},
		{"not a JWT", "static-token", 0, stored{uid: "u1"}, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := start.Add(tt.after)
			tokens := newTestTokens(t, &now, tt.sa, current, rotated)
			u, ours, err := tokens.Verify(context.Background(), tt.token, tt.audiences)
			if ours != tt.ours || (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
				t.Fatalf("ours %v, err %v; want %v, %q", ours, err, tt.ours, tt.err)
			}
			if !ours || err != nil {
				return
			}
			if u.Name != "system:serviceaccount:ops:robot" || u.UID != "u1" || strings.Join(u.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:ops" ||
				!strings.HasPrefix(u.Extra[credentialIDKey][0], "JTI=") {
				t.Errorf("user %+v", u)
			}
		})
	}
}

// A token of another issuer is not ours: another authenticator may read it.
func TestVerifyOtherIssuer(t *testing.T) {
	t.Parallel()
	now := time.Now()
	key := mustKey(t)
	other, err := New(Options{Issuers: []string{"https://elsewhere"}, SigningKey: must(ParsePrivateKey(key)), Lookup: stored{}.lookup})
	if err != nil {
		t.Fatal(err)
	}
	token, _, _, err := other.Issue("ops", "robot", "u1", []string{"https://issuer"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, ours, err := newTestTokens(t, &now, stored{uid: "u1"}, key).Verify(context.Background(), token, nil); ours || err != nil {
		t.Fatalf("ours %v, err %v", ours, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
