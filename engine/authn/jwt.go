package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// jwt is a parsed, not yet verified, compact JWS.
type jwt struct {
	header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	claims    map[string]any
	signed    string // header.payload
	signature []byte
}

func parseJWT(token string) (*jwt, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a JWT")
	}
	j := &jwt{signed: parts[0] + "." + parts[1]}
	if err := decodeSegment(parts[0], &j.header); err != nil {
		return nil, err
	}
	if err := decodeSegment(parts[1], &j.claims); err != nil {
		return nil, err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, err
	}
	j.signature = sig
	return j, nil
}

func decodeSegment(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// verify checks the signature with key, for the algorithms OIDC issuers
// use: RS256/384/512 and ES256/384/512.
func (j *jwt) verify(key any) error {
	var h crypto.Hash
	if len(j.header.Alg) != 5 {
		return fmt.Errorf("oidc: unsupported alg %q", j.header.Alg)
	}
	switch j.header.Alg[2:] {
	case "256":
		h = crypto.SHA256
	case "384":
		h = crypto.SHA384
	case "512":
		h = crypto.SHA512
	default:
		return fmt.Errorf("oidc: unsupported alg %q", j.header.Alg)
	}
	digest := hashOf(h, j.signed)
	switch k := key.(type) {
	case *rsa.PublicKey:
		if !strings.HasPrefix(j.header.Alg, "RS") {
			break
		}
		if err := rsa.VerifyPKCS1v15(k, h, digest, j.signature); err != nil {
			return fmt.Errorf("oidc: bad signature: %w", err)
		}
		return nil
	case *ecdsa.PublicKey:
		if !strings.HasPrefix(j.header.Alg, "ES") || len(j.signature)%2 != 0 {
			break
		}
		half := len(j.signature) / 2
		r, s := new(big.Int).SetBytes(j.signature[:half]), new(big.Int).SetBytes(j.signature[half:])
		if !ecdsa.Verify(k, digest, r, s) {
			return errors.New("oidc: bad signature")
		}
		return nil
	}
	return fmt.Errorf("oidc: alg %q does not fit the key", j.header.Alg)
}

func hashOf(h crypto.Hash, s string) []byte {
	switch h {
	case crypto.SHA384:
		d := sha512.Sum384([]byte(s))
		return d[:]
	case crypto.SHA512:
		d := sha512.Sum512([]byte(s))
		return d[:]
	}
	d := sha256.Sum256([]byte(s))
	return d[:]
}

// jwks is a JSON Web Key Set.
type jwks struct {
	Keys []struct {
		Kty string `json:"kty"`
		Kid string `json:"kid"`
		Use string `json:"use"`
		N   string `json:"n"`
		E   string `json:"e"`
		Crv string `json:"crv"`
		X   string `json:"x"`
		Y   string `json:"y"`
	} `json:"keys"`
}

// publicKeys are the set's signing keys by kid; keys it cannot read are left out.
func (s jwks) publicKeys() map[string]any {
	out := map[string]any{}
	for _, k := range s.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch k.Kty {
		case "RSA":
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 == nil && err2 == nil {
				out[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
			}
		case "EC":
			curve := map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}[k.Crv]
			x, err1 := base64.RawURLEncoding.DecodeString(k.X)
			y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
			if curve != nil && err1 == nil && err2 == nil {
				out[k.Kid] = &ecdsa.PublicKey{Curve: curve, X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
			}
		}
	}
	return out
}
