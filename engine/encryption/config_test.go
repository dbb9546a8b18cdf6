package encryption

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// TestLoadValid loads every file of testdata/valid.
func TestLoadValid(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/valid/*")
	if len(files) == 0 {
		t.Fatal("no testdata/valid files")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestLoadInvalid checks that each file of testdata/invalid is refused
// with an error that names the problem.
func TestLoadInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, want string }{
		{"short-key.yaml", "resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got 5, expected one of [16 24 32]"},
		{"no-providers.yaml", "resources[0].providers: Required value"},
		{"kms.yaml", `kms provider "vault": KMS is not supported by dynapi`},
		{"masked.yaml", `resource "secrets" is masked by earlier rule "*.*"`},
		{"unknown-field.yaml", `unknown field "keyz"`},
		{"bad-base64.yaml", `resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`},
		{"wrong-kind.yaml", `want kind EncryptionConfiguration of apiVersion apiserver.config.k8s.io/v1, got kind "ConfigMap" of apiVersion "v1"`},
		{"missing.yaml", "error reading encryption provider configuration file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			_, err := Load(filepath.Join("testdata/invalid", tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v, want an error with %q", err, tt.want)
			}
		})
	}
	files, _ := filepath.Glob("testdata/invalid/*")
	if len(files) != len(tests)-1 {
		t.Errorf("%d files in testdata/invalid, %d cases", len(files), len(tests)-1)
	}
}

// TestFor resolves resources as kube-apiserver does: the exact resource,
// then "*.group", then "*.*"; nothing for resources no rule covers.
func TestFor(t *testing.T) {
	t.Parallel()
	only, err := Load("testdata/valid/aescbc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Load("testdata/valid/rotated.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		c      *Config
		gr     engine.GroupResource
		prefix string // of a ciphertext; "" for none, "-" for no transformer
	}{
		{"exact core", only, engine.GroupResource{Resource: "secrets"}, "k8s:enc:aescbc:v1:key1:"},
		{"second exact", only, engine.GroupResource{Resource: "configmaps"}, "k8s:enc:aescbc:v1:key1:"},
		{"not named", only, engine.GroupResource{Resource: "namespaces"}, "-"},
		{"nil config", nil, engine.GroupResource{Resource: "secrets"}, "-"},
		{"rotated", all, engine.GroupResource{Resource: "secrets"}, "k8s:enc:aescbc:v1:key2:"},
		{"other group", all, engine.GroupResource{Group: "shop.example.com", Resource: "widgets"}, "k8s:enc:secretbox:v1:box1:"},
		{"group", all, engine.GroupResource{Group: "example.com", Resource: "widgets"}, "k8s:enc:aesgcm:v1:gcm1:"},
		{"any", all, engine.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}, "k8s:enc:secretbox:v1:box1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := tt.c.For(tt.gr)
			if tt.prefix == "-" {
				if tr != nil {
					t.Fatalf("For(%s) = %v, want nil", tt.gr, tr)
				}
				return
			}
			out, err := tr.TransformToStorage(context.Background(), []byte(`{"data":{"k":"dg=="}}`), []byte("/registry/x"))
			if err != nil || !strings.HasPrefix(string(out), tt.prefix) {
				t.Fatalf("TransformToStorage = %q, %v; want prefix %q", out, err, tt.prefix)
			}
		})
	}
}
