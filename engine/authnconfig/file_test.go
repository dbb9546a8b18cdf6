package authnconfig

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/testkit/oidctest"
)

// issuers are the two test issuers of testdata/two-issuers.yaml.
type issuers struct{ corp, ci *oidctest.Issuer }

// config returns testdata/NAME with the issuers' URLs and CAs filled in.
func (is issuers) config(t *testing.T, name string) []byte {
	t.Helper()
	return oidctest.Fill(t, filepath.Join("testdata", name), is.corp, is.ci)
}

func (is issuers) corpToken(t *testing.T, set map[string]any) string {
	c := map[string]any{"iss": is.corp.URL(), "aud": []string{"other"}, "sub": "u-1", "email": "dora@example.com",
		"groups": []string{"devs"}, "tenant": "acme", "exp": time.Now().Unix() + 60}
	for k, v := range set {
		c[k] = v
	}
	return is.corp.Sign(t, "k1", c)
}

func (is issuers) ciToken(t *testing.T, set map[string]any) string {
	c := map[string]any{"iss": is.ci.URL(), "aud": "dynapi", "sub": "build-7", "hd": "example.com",
		"roles": "deployer,reader", "pipeline": "release", "exp": time.Now().Unix() + 60}
	for k, v := range set {
		c[k] = v
	}
	return is.ci.Sign(t, "k1", c)
}

func authenticate(f *File, token string) (*engine.User, bool, error) {
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return f.Authenticate(r)
}

func openFile(t *testing.T, data []byte, reg prometheus.Registerer) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "authn.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Options{Registerer: reg, DisallowedIssuers: []string{"https://kubernetes.default.svc.cluster.local"}})
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func TestTwoIssuers(t *testing.T) {
	is := issuers{corp: oidctest.New(t), ci: oidctest.New(t)}
	f, _ := openFile(t, is.config(t, "two-issuers.yaml"), nil)
	tests := []struct {
		name  string
		token string
		want  *engine.User // nil: refused
		why   string       // what the refusal says
	}{
		{name: "corp, mapped by claims", token: is.corpToken(t, nil),
			want: &engine.User{Name: "corp:dora@example.com", UID: "u-1", Groups: []string{"corp:devs", "system:authenticated"}}},
		{name: "ci, mapped by CEL", token: is.ciToken(t, nil),
			want: &engine.User{Name: "ci:build-7", Groups: []string{"role:deployer", "role:reader", "system:authenticated"},
				Extra: map[string][]string{"example.com/pipeline": {"release"}}}},
		{name: "jti is the credential id", token: is.ciToken(t, map[string]any{"jti": "j-9", "pipeline": ""}),
			want: &engine.User{Name: "ci:build-7", Groups: []string{"role:deployer", "role:reader", "system:authenticated"},
				Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=j-9"}}}},
		{name: "claim validation rule (CEL)", token: is.corpToken(t, map[string]any{"tenant": "umbrella"}),
			why: "validation expression 'claims.tenant == 'acme'' failed: tenant must be acme"},
		{name: "claim validation rule (requiredValue)", token: is.ciToken(t, map[string]any{"hd": "evil.com"}),
			why: "required claim hd value does not match. Got = evil.com, want = example.com"},
		{name: "user validation rule", token: is.corpToken(t, map[string]any{"email": "system:admin"}),
			why: "validation expression '!user.username.startsWith('corp:system:')' failed: username must not use the reserved system prefix"},
		{name: "audience of neither", token: is.ciToken(t, map[string]any{"aud": "other"}), why: "expected audience"},
		{name: "email not verified", token: is.corpToken(t, map[string]any{"email_verified": false}), why: "email not verified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok, err := authenticate(f, tt.token)
			if tt.want == nil {
				if ok || err == nil || !strings.Contains(err.Error(), tt.why) {
					t.Fatalf("want refused with %q, got %+v %v %v", tt.why, u, ok, err)
				}
				return
			}
			if err != nil || !ok || !reflect.DeepEqual(u, tt.want) {
				t.Fatalf("got %+v %v %v, want %+v", u, ok, err, tt.want)
			}
		})
	}
}

func TestReload(t *testing.T) {
	is := issuers{corp: oidctest.New(t), ci: oidctest.New(t)}
	reg := prometheus.NewRegistry()
	f, path := openFile(t, is.config(t, "two-issuers.yaml"), reg)
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f.reload()
	}
	reloads := func(status string) float64 {
		return testutil.ToFloat64(f.metrics.reloads.WithLabelValues(status, f.metrics.idHash))
	}
	ci := is.ciToken(t, nil)

	// The CI issuer removed: its tokens are refused, the corp's still work.
	write(is.config(t, "one-issuer.yaml"))
	if _, ok, _ := authenticate(f, ci); ok {
		t.Fatal("token of a removed issuer still accepted")
	}
	if u, ok, err := authenticate(f, is.corpToken(t, nil)); !ok || u.Name != "corp:dora@example.com" {
		t.Fatalf("corp token after reload: %+v %v %v", u, ok, err)
	}
	if reloads("success") != 1 {
		t.Fatalf("success reloads: %v", reloads("success"))
	}
	// Broken edits leave it in force, each counted once as a failure.
	broken := map[string][]byte{
		"not YAML":             []byte("jwt: [\n"),
		"unknown field":        append(is.config(t, "one-issuer.yaml"), []byte("extra: 1\n")...),
		"CEL does not compile": []byte(strings.Replace(string(is.config(t, "one-issuer.yaml")), "claims.tenant ==", "claims.tenant ===", 1)),
		"anonymous changed":    append(is.config(t, "one-issuer.yaml"), []byte("anonymous: {enabled: true}\n")...),
	}
	for name, data := range broken {
		write(data)
		write(data) // the same content again is not tried again
		if u, ok, err := authenticate(f, is.corpToken(t, nil)); !ok {
			t.Fatalf("%s: the previous configuration is not in force: %+v %v %v", name, u, ok, err)
		}
	}
	if reloads("failure") != float64(len(broken)) || reloads("success") != 1 {
		t.Fatalf("reloads: %v failures, %v successes", reloads("failure"), reloads("success"))
	}
}
