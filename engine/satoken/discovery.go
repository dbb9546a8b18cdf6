package satoken

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"

	jose "gopkg.in/go-jose/go-jose.v2"
)

// The paths of kube's service-account issuer discovery.
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
)

// openIDMetadata is kube's discovery document.
type openIDMetadata struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// Discovery returns kube's two documents: the OpenID configuration of
// the issuer (whose jwks_uri is jwksURI, or the issuer's own JWKSPath
// when empty) and the key set that verifies its tokens. ok is false when
// the issuer is not an https URL without query or fragment, for which
// kube serves no discovery. Errors: those of encoding.
func (t *Tokens) Discovery(jwksURI string) (config, keys []byte, ok bool, err error) {
	iss, err := url.Parse(t.opts.Issuers[0])
	if err != nil || iss.Scheme != "https" || iss.RawQuery != "" || iss.Fragment != "" {
		return nil, nil, false, nil
	}
	if jwksURI == "" {
		jwksURI = iss.JoinPath(JWKSPath).String()
	}
	set := jose.JSONWebKeySet{}
	algs := []string{}
	for _, k := range t.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.key, KeyID: k.id, Algorithm: k.alg, Use: "sig"})
		if !slices.Contains(algs, k.alg) {
			algs = append(algs, k.alg)
		}
	}
	if keys, err = json.Marshal(set); err != nil {
		return nil, nil, false, fmt.Errorf("encode service account keys: %w", err)
	}
	config, err = json.Marshal(openIDMetadata{Issuer: t.opts.Issuers[0], JWKSURI: jwksURI,
		ResponseTypes: []string{"id_token"}, SubjectTypes: []string{"public"}, SigningAlgs: algs})
	if err != nil {
		return nil, nil, false, fmt.Errorf("encode service account issuer metadata: %w", err)
	}
	return config, keys, true, nil
}
