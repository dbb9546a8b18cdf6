// Package pki keeps the certificates a server bootstraps itself with, as
// k3s does on its first start: a certificate authority, a serving
// certificate for the names the server is reached by, and an admin
// client certificate, as PEM files in one folder. What exists is reused
// across restarts; a leaf certificate is issued again from the same CA
// when it is missing, about to expire, or (serving) lacks a name now
// needed, so that clients keep trusting the server and the admin keeps
// its access. Only the standard library.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Validity of what Ensure issues, and how long before its end a leaf is
// issued again (k3s' figures: a CA of ten years, leaves of one, renewed
// at start within 90 days of their end).
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	renewBefore  = 90 * 24 * time.Hour
)

// Admin is who the admin certificate names: system:masters, which kube's
// bootstrap RBAC binds to cluster-admin.
const (
	AdminUser  = "dynapi-admin"
	AdminGroup = "system:masters"
)

// Files are the paths of the bootstrapped PEM files.
type Files struct {
	CA, ServingCert, ServingKey, AdminCert, AdminKey string
}

// filesIn are the files of dir.
func filesIn(dir string) Files {
	return Files{CA: filepath.Join(dir, "ca.crt"), ServingCert: filepath.Join(dir, "serving.crt"),
		ServingKey: filepath.Join(dir, "serving.key"), AdminCert: filepath.Join(dir, "admin.crt"), AdminKey: filepath.Join(dir, "admin.key")}
}

// Ensure makes the folder dir (0700) hold a CA, a serving certificate
// valid for every one of hosts (names or IP addresses), and an admin
// client certificate, reusing those there, and returns their paths. One
// call at a time works in dir, whatever process makes it: processes that
// start together agree on one CA (see lock).
// Errors: a file that cannot be read, parsed or written; the lock held
// too long.
func Ensure(dir string, hosts []string, now time.Time) (Files, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, err
	}
	unlock, err := lock(dir)
	if err != nil {
		return Files{}, err
	}
	defer unlock()
	f := filesIn(dir)
	ca, err := ensureCA(f.CA, filepath.Join(dir, "ca.key"), now)
	if err != nil {
		return Files{}, err
	}
	serving := &x509.Certificate{Subject: pkix.Name{CommonName: "dynapi"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			serving.IPAddresses = append(serving.IPAddresses, ip)
		} else {
			serving.DNSNames = append(serving.DNSNames, h)
		}
	}
	if err := ca.ensureLeaf(f.ServingCert, f.ServingKey, serving, now, coversAll(hosts)); err != nil {
		return Files{}, err
	}
	admin := &x509.Certificate{Subject: pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	return f, ca.ensureLeaf(f.AdminCert, f.AdminKey, admin, now, nil)
}

// authority is a CA that signs leaves.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// ensureCA loads the CA of certFile and keyFile, or makes one when
// neither exists. Errors: one file without the other, or unreadable.
func ensureCA(certFile, keyFile string, now time.Time) (*authority, error) {
	cert, key, err := loadPair(certFile, keyFile)
	if err == nil {
		return &authority{cert: cert, key: key}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || exists(certFile) || exists(keyFile) {
		return nil, fmt.Errorf("the bootstrap CA (%s): %w", certFile, err)
	}
	key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: fmt.Sprintf("dynapi-ca@%d", now.Unix())},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	cert, err = sign(tmpl, tmpl, &key.PublicKey, key, now, caValidity)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key}, writePair(certFile, keyFile, cert, key)
}

// ensureLeaf keeps the leaf of certFile and keyFile when this CA signed
// it, it lasts past renewBefore, and ok (when set) accepts it; otherwise
// it issues tmpl again.
func (ca *authority) ensureLeaf(certFile, keyFile string, tmpl *x509.Certificate, now time.Time, ok func(*x509.Certificate) bool) error {
	if cert, _, err := loadPair(certFile, keyFile); err == nil && cert.CheckSignatureFrom(ca.cert) == nil &&
		cert.NotAfter.After(now.Add(renewBefore)) && (ok == nil || ok(cert)) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	cert, err := sign(tmpl, ca.cert, &key.PublicKey, ca.key, now, leafValidity)
	if err != nil {
		return err
	}
	return writePair(certFile, keyFile, cert, key)
}

// coversAll accepts a serving certificate valid for every one of hosts.
func coversAll(hosts []string) func(*x509.Certificate) bool {
	return func(cert *x509.Certificate) bool {
		for _, h := range hosts {
			if cert.VerifyHostname(h) != nil {
				return false
			}
		}
		return true
	}
}

// sign issues tmpl, valid from an hour before now (clocks differ) for
// validity, signed by parent's key.
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey, now time.Time, validity time.Duration) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = serial, now.Add(-time.Hour), now.Add(validity)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}
