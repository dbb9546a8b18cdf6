package pki

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// loadPair reads a PEM certificate and its EC private key. Errors:
// fs.ErrNotExist when either is missing; a file that does not parse.
func loadPair(certFile, keyFile string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	cb, kb := der(certPEM), der(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("%s or %s is not PEM", certFile, keyFile)
	}
	cert, err := x509.ParseCertificate(cb)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kb)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// der is the content of the first PEM block of b; nil when none.
func der(b []byte) []byte {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil
	}
	return block.Bytes
}

// writePair writes a certificate (0644) and its key (0600), each through
// a temporary file renamed over the old one, so that no reader (the
// server's certificate reloader) sees half a file.
func writePair(certFile, keyFile string, cert *x509.Certificate, key *ecdsa.PrivateKey) error {
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := writeAtomic(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		return err
	}
	return writeAtomic(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644)
}

// WriteFile writes data to path with mode through a temporary file
// renamed over the old one.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	return writeAtomic(path, data, mode)
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, nothing to remove
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(mode), tmp.Close())
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
