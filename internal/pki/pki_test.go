package pki

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestEnsure: the first call makes a CA and leaves; later calls keep
// them, issue the serving certificate again (same CA) for a name it lacks
// or when it nears its end, and refuse a CA key without its certificate.
func TestEnsure(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		hosts        []string
		at           time.Time
		newServing   bool // a serving certificate issued again
		newAdmin     bool
		wantServesTo string
	}{
		{"same names", []string{"127.0.0.1", "localhost"}, now.Add(time.Hour), false, false, "localhost"},
		{"a new name", []string{"127.0.0.1", "localhost", "dynapi.example.com", "10.0.0.7"}, now.Add(time.Hour), true, false, "dynapi.example.com"},
		{"near the end", []string{"127.0.0.1", "localhost"}, now.Add(leafValidity - renewBefore/2), true, true, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir() + "/pki"
			first, err := Ensure(dir, []string{"127.0.0.1", "localhost"}, now)
			if err != nil {
				t.Fatal(err)
			}
			before := read(t, first)
			if _, err := Ensure(dir, tt.hosts, tt.at); err != nil {
				t.Fatal(err)
			}
			after := read(t, first)
			if !bytes.Equal(before[first.CA], after[first.CA]) {
				t.Errorf("the CA changed")
			}
			if changed := !bytes.Equal(before[first.ServingCert], after[first.ServingCert]); changed != tt.newServing {
				t.Errorf("serving certificate issued again: %v, want %v", changed, tt.newServing)
			}
			if changed := !bytes.Equal(before[first.AdminCert], after[first.AdminCert]); changed != tt.newAdmin {
				t.Errorf("admin certificate issued again: %v, want %v", changed, tt.newAdmin)
			}
			verify(t, after[first.CA], after[first.ServingCert], tt.wantServesTo, x509.ExtKeyUsageServerAuth, tt.at)
			admin := verify(t, after[first.CA], after[first.AdminCert], "", x509.ExtKeyUsageClientAuth, tt.at)
			if admin.Subject.CommonName != AdminUser || len(admin.Subject.Organization) != 1 || admin.Subject.Organization[0] != AdminGroup {
				t.Errorf("admin subject %v", admin.Subject)
			}
			for _, key := range []string{first.ServingKey, first.AdminKey, dir + "/ca.key"} {
				if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("%s: %v %v", key, st.Mode(), err)
				}
			}
		})
	}
	t.Run("a CA key without its certificate", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(dir+"/ca.key", []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Ensure(dir, nil, now); err == nil {
			t.Fatal("a new CA made beside another's key")
		}
	})
}

// TestEnsureAtOnce: processes that start together on an empty folder
// agree on one CA: every call succeeds, and what the folder holds at the
// end is one CA with its own key and leaves it signed. Several rounds,
// each on a new folder, since one round may happen not to interleave.
func TestEnsureAtOnce(t *testing.T) {
	now := time.Now()
	for round := range 10 {
		dir := fmt.Sprintf("%s/pki%d", t.TempDir(), round)
		ensureAtOnce(t, dir, 8, now)
		f := filesIn(dir)
		ca, err := ensureCA(f.CA, dir+"/ca.key", now)
		if err != nil {
			t.Fatal(err)
		}
		if !ca.key.PublicKey.Equal(ca.cert.PublicKey) {
			t.Fatalf("round %d: ca.key is not the key of ca.crt", round)
		}
		files := read(t, f)
		verify(t, files[f.CA], files[f.ServingCert], "localhost", x509.ExtKeyUsageServerAuth, now)
		verify(t, files[f.CA], files[f.AdminCert], "", x509.ExtKeyUsageClientAuth, now)
	}
}

// ensureAtOnce runs calls Ensures of dir released at the same instant,
// and fails the test if one fails.
func ensureAtOnce(t *testing.T, dir string, calls int, now time.Time) {
	t.Helper()
	ready := make(chan struct{})
	errs := make(chan error, calls)
	for range calls {
		go func() {
			<-ready
			_, err := Ensure(dir, []string{"127.0.0.1", "localhost"}, now)
			errs <- err
		}()
	}
	close(ready)
	for range calls {
		if err := <-errs; err != nil {
			t.Fatalf("Ensure: %v", err)
		}
	}
}

func read(t *testing.T, f Files) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range []string{f.CA, f.ServingCert, f.ServingKey, f.AdminCert, f.AdminKey} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// verify checks that certPEM chains to caPEM for usage (and host), at now.
func verify(t *testing.T, caPEM, certPEM []byte, host string, usage x509.ExtKeyUsage, now time.Time) *x509.Certificate {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	cert, err := x509.ParseCertificate(der(certPEM))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}, CurrentTime: now}); err != nil {
		t.Errorf("%s: %v", cert.Subject, err)
	}
	return cert
}
