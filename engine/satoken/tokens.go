package satoken

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	jose "gopkg.in/go-jose/go-jose.v2"
	"gopkg.in/go-jose/go-jose.v2/jwt"
)

// Account is the ServiceAccount a token is for.
type Account struct {
	Namespace, Name, UID string
}

// Lookup finds a stored ServiceAccount: its uid, and whether it is marked
// for deletion. Errors: NotFound when there is none.
type Lookup func(ctx context.Context, namespace, name string) (uid string, deleting bool, err error)

// Options configure Tokens, as kube-apiserver's --service-account-* and
// --api-audiences flags.
type Options struct {
	// Issuers are the accepted "iss" values; the first is the one issued
	// (--service-account-issuer, given once or more).
	Issuers []string
	// Audiences are the audiences the API accepts and the default of a
	// TokenRequest (--api-audiences); empty: the issuers, as in kube.
	Audiences []string
	// SigningKey signs the tokens (--service-account-signing-key-file).
	SigningKey crypto.Signer
	// PublicKeys verify tokens besides SigningKey's public half
	// (--service-account-key-file): tokens of keys being rotated out.
	PublicKeys []crypto.PublicKey
	// MaxExpiration bounds a TokenRequest's expirationSeconds
	// (--service-account-max-token-expiration); 0: no bound but kube's.
	MaxExpiration time.Duration
	// Lookup finds the ServiceAccount a token names.
	Lookup Lookup
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Tokens issues and verifies service-account tokens. Build it with New;
// it is safe for concurrent use.
type Tokens struct {
	opts   Options
	signer jose.Signer
	keys   []verifyKey
}

// verifyKey is a key tokens are verified with.
type verifyKey struct {
	id  string
	alg string
	key crypto.PublicKey
}

// New returns Tokens for opts. Errors: no issuer, no signing key, or a key
// of a type JOSE cannot sign or verify with.
func New(opts Options) (*Tokens, error) {
	if len(opts.Issuers) == 0 || opts.Issuers[0] == "" {
		return nil, errors.New("service account tokens need an issuer")
	}
	if opts.SigningKey == nil {
		return nil, errors.New("service account tokens need a signing key")
	}
	if len(opts.Audiences) == 0 {
		opts.Audiences = opts.Issuers
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t := &Tokens{opts: opts}
	for _, pub := range append([]crypto.PublicKey{opts.SigningKey.Public()}, opts.PublicKeys...) {
		if err := t.addKey(pub); err != nil {
			return nil, err
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(t.keys[0].alg),
		Key: jose.JSONWebKey{Key: opts.SigningKey, KeyID: t.keys[0].id}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, fmt.Errorf("service account signer: %w", err)
	}
	t.signer = signer
	return t, nil
}

// addKey adds a verification key, once.
func (t *Tokens) addKey(pub crypto.PublicKey) error {
	id, err := keyID(pub)
	if err != nil {
		return err
	}
	alg, err := algorithm(pub)
	if err != nil {
		return err
	}
	for _, k := range t.keys {
		if k.id == id {
			return nil
		}
	}
	t.keys = append(t.keys, verifyKey{id: id, alg: alg, key: pub})
	return nil
}

// Audiences are the audiences the API accepts, a TokenRequest's default.
func (t *Tokens) Audiences() []string { return t.opts.Audiences }

// MaxExpiration is the longest a requested token may live; 0: no bound.
func (t *Tokens) MaxExpiration() time.Duration { return t.opts.MaxExpiration }

// privateClaims are kube's "kubernetes.io" claims of a token bound to
// nothing but its ServiceAccount.
type privateClaims struct {
	Kubernetes kubernetesClaims `json:"kubernetes.io,omitempty"`
}

type kubernetesClaims struct {
	Namespace string `json:"namespace,omitempty"`
	Svcacct   ref    `json:"serviceaccount,omitempty"`
}

type ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// Issue signs a token for the ServiceAccount namespace/name of uid, for
// audiences, that expires after ttl, as kube's TokenRequest does. It
// returns the token, its expiry and its credential id ("JTI=…", which
// requests made with it carry in their user's extra). Errors: those of
// signing.
func (t *Tokens) Issue(namespace, name, uid string, audiences []string, ttl time.Duration) (token string, exp time.Time, credentialID string, err error) {
	sa := Account{Namespace: namespace, Name: name, UID: uid}
	now := t.opts.Now()
	exp = now.Add(ttl)
	public := &jwt.Claims{Issuer: t.opts.Issuers[0], Subject: Username(sa.Namespace, sa.Name), Audience: jwt.Audience(audiences),
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(exp), ID: uuid.NewString()}
	private := &privateClaims{Kubernetes: kubernetesClaims{Namespace: sa.Namespace, Svcacct: ref{Name: sa.Name, UID: sa.UID}}}
	token, err = jwt.Signed(t.signer).Claims(public).Claims(private).CompactSerialize()
	if err != nil {
		return "", time.Time{}, "", fmt.Errorf("sign service account token: %w", err)
	}
	return token, exp, credentialIDJTI + public.ID, nil
}
