package satoken

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
)

// ParsePrivateKey reads the first private key of a PEM file (PKCS#1 RSA,
// SEC 1 EC or PKCS#8), kube's --service-account-signing-key-file.
// Errors: a file with no RSA or ECDSA private key.
func ParsePrivateKey(data []byte) (crypto.Signer, error) {
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		switch block.Type {
		case "RSA PRIVATE KEY":
			return x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			return x509.ParseECPrivateKey(block.Bytes)
		case "PRIVATE KEY":
			key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, err
			}
			return signer(key)
		}
	}
	return nil, errors.New("no RSA or ECDSA private key in PEM data")
}

// ParsePublicKeys reads every public key of a PEM file, kube's
// --service-account-key-file: public keys, certificates, and private
// keys (whose public half is taken). Errors: a block that does not parse,
// or no key at all.
func ParsePublicKeys(data []byte) ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		key, err := publicKey(block)
		if err != nil {
			return nil, err
		}
		if key != nil {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no public key in PEM data")
	}
	return keys, nil
}

// publicKey is the public key of one PEM block; nil for a block of
// another type.
func publicKey(block *pem.Block) (crypto.PublicKey, error) {
	switch block.Type {
	case "PUBLIC KEY":
		return x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		return cert.PublicKey, nil
	case "RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY":
		key, err := ParsePrivateKey(pem.EncodeToMemory(block))
		if err != nil {
			return nil, err
		}
		return key.Public(), nil
	}
	return nil, nil
}

// signer is key, when it is an RSA or ECDSA key.
func signer(key any) (crypto.Signer, error) {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("unsupported private key type %T", key)
}

// GenerateKey makes a new 2048-bit RSA signing key, PEM-encoded (PKCS#1),
// as kube's tooling makes them.
func GenerateKey() ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), nil
}

// keyID is kube's key id: the unpadded base64url SHA-256 of the public
// key's PKIX DER encoding.
func keyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("key id: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// algorithm is the JWS algorithm kube signs with a key of pub's type.
func algorithm(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RS256", nil
	case *ecdsa.PublicKey:
		switch k.Curve.Params().BitSize {
		case 256:
			return "ES256", nil
		case 384:
			return "ES384", nil
		case 521:
			return "ES512", nil
		}
	}
	return "", fmt.Errorf("unsupported public key type %T", pub)
}
