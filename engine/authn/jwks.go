package authn

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// key returns the issuer's key kid, fetching the JWKS when it is unknown.
func (a *JWT) key(r *http.Request, kid string) (any, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k, ok := a.keys[kid]; ok {
		return k, nil
	}
	if a.keys != nil && a.Now().Sub(a.fetched) < keyRefetch {
		return nil, fmt.Errorf("oidc: unknown key %q", kid)
	}
	keys, err := a.fetchKeys(r)
	a.fetched = a.Now()
	if err != nil {
		return nil, err
	}
	a.keys = keys
	k, ok := keys[kid]
	if !ok {
		return nil, fmt.Errorf("oidc: unknown key %q", kid)
	}
	return k, nil
}

// fetchKeys reads the discovery document (at discoveryURL when the issuer
// names one, else under the issuer URL), then the JWKS it names.
func (a *JWT) fetchKeys(r *http.Request) (map[string]any, error) {
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	url := a.cfg.Issuer.DiscoveryURL
	if url == "" {
		url = strings.TrimSuffix(a.cfg.Issuer.URL, "/") + "/.well-known/openid-configuration"
	}
	if err := a.getJSON(r, url, &disc); err != nil {
		return nil, err
	}
	if disc.Issuer != a.cfg.Issuer.URL {
		return nil, fmt.Errorf("oidc: discovery names issuer %q, not %q", disc.Issuer, a.cfg.Issuer.URL)
	}
	var set jwks
	if err := a.getJSON(r, disc.JWKSURI, &set); err != nil {
		return nil, err
	}
	return set.publicKeys(), nil
}

func (a *JWT) getJSON(r *http.Request, url string, v any) error {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("oidc: %w", err)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("oidc: fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oidc: fetch %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("oidc: decode %s: %w", url, err)
	}
	return nil
}
