package encryption

import (
	"context"
	"crypto/aes"
	"encoding/base64"
	"errors"
	"fmt"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/apiserver/pkg/storage/value/encrypt/secretbox"
)

// The prefixes of kube-apiserver's providers; identity has none.
const (
	aesCBCPrefix    = "k8s:enc:aescbc:v1:"
	aesGCMPrefix    = "k8s:enc:aesgcm:v1:"
	secretboxPrefix = "k8s:enc:secretbox:v1:"
)

// Transformer encrypts and decrypts the bodies of one resource with the
// providers configured for it, in order.
type Transformer struct {
	value value.Transformer
}

// TransformToStorage encrypts data with the first provider, bound to
// authenticatedData (the row's key) by the providers that authenticate it
// (aesgcm, secretbox: a ciphertext moved to another row does not
// decrypt). With identity first it returns data unchanged.
func (t *Transformer) TransformToStorage(ctx context.Context, data, authenticatedData []byte) ([]byte, error) {
	return t.value.TransformToStorage(ctx, data, value.DefaultContext(authenticatedData))
}

// TransformFromStorage decrypts data with the provider its prefix names
// (identity for data without a kube prefix, when identity is configured).
// stale is true when that provider or key is not the first one: a write
// would store it otherwise. Errors: no provider matches, or the cipher
// refuses (wrong key, altered data, another row's ciphertext).
func (t *Transformer) TransformFromStorage(ctx context.Context, data, authenticatedData []byte) ([]byte, bool, error) {
	return t.value.TransformFromStorage(ctx, data, value.DefaultContext(authenticatedData))
}

// prefixTransformers builds the providers of one resource entry, in order,
// as kube-apiserver's encryptionconfig does.
func prefixTransformers(rc apiserver.ResourceConfiguration) ([]value.PrefixTransformer, error) {
	var out []value.PrefixTransformer
	for i, p := range rc.Providers {
		t, err := prefixTransformer(p)
		if err != nil {
			return nil, fmt.Errorf("providers[%d]: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// prefixTransformer builds one provider. Errors: kms, and keys that do
// not make a cipher.
func prefixTransformer(p apiserver.ProviderConfiguration) (value.PrefixTransformer, error) {
	switch {
	case p.AESGCM != nil:
		return keyed(p.AESGCM.Keys, aesGCMPrefix, "AES", func(key []byte) (value.Transformer, error) {
			block, err := aes.NewCipher(key)
			if err != nil {
				return nil, err
			}
			return aestransformer.NewGCMTransformer(block)
		})
	case p.AESCBC != nil:
		return keyed(p.AESCBC.Keys, aesCBCPrefix, "AES", func(key []byte) (value.Transformer, error) {
			block, err := aes.NewCipher(key)
			if err != nil {
				return nil, err
			}
			return aestransformer.NewCBCTransformer(block), nil
		})
	case p.Secretbox != nil:
		return keyed(p.Secretbox.Keys, secretboxPrefix, "Secretbox", secretboxKey)
	case p.Identity != nil:
		return value.PrefixTransformer{Transformer: identity.NewEncryptCheckTransformer(), Prefix: []byte{}}, nil
	case p.KMS != nil:
		return value.PrefixTransformer{}, fmt.Errorf("kms provider %q: KMS is not supported by dynapi; use aesgcm, aescbc or secretbox", p.KMS.Name)
	}
	return value.PrefixTransformer{}, errors.New("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity")
}

// secretboxKey makes secretbox's transformer of a 32-byte key.
func secretboxKey(key []byte) (value.Transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
	}
	return secretbox.NewSecretboxTransformer([32]byte(key)), nil
}

// keyed builds a provider of named keys: its prefix, then each key's name
// and ":" before the key's ciphertext, the first key encrypting.
func keyed(keys []apiserver.Key, prefix, kind string, make func([]byte) (value.Transformer, error)) (value.PrefixTransformer, error) {
	var list []value.PrefixTransformer
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("could not obtain secret for named key %s: %w", k.Name, err)
		}
		t, err := make(secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("error while creating transformer for named key %s: %w", k.Name, err)
		}
		list = append(list, value.PrefixTransformer{Transformer: t, Prefix: []byte(k.Name + ":")})
	}
	inner := value.NewPrefixTransformers(fmt.Errorf("no matching key was found for the provided %s transformer", kind), list...)
	return value.PrefixTransformer{Transformer: inner, Prefix: []byte(prefix)}, nil
}
