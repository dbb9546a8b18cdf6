package postgres

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Transformer encrypts and decrypts the bodies of one resource at rest
// (engine/encryption's, which is kube-apiserver's). authenticatedData is
// the row's key: providers that authenticate it refuse a ciphertext moved
// to another row. stale says a write would store the value otherwise (an
// older key or provider).
type Transformer interface {
	TransformToStorage(ctx context.Context, data, authenticatedData []byte) ([]byte, error)
	TransformFromStorage(ctx context.Context, data, authenticatedData []byte) (out []byte, stale bool, err error)
}

// encryptedKey is the member of a sealed body holding the base64 of the
// kube ciphertext ("k8s:enc:aescbc:v1:key1:..."). No stored body has it
// otherwise: pruning drops unknown fields, and the colon makes it no
// field name a schema declares in practice.
const encryptedKey = "k8s:enc"

// encryptedPrefix starts every ciphertext; identity writes none.
var encryptedPrefix = []byte("k8s:enc:")

// sealedMetadata are the members of metadata that a sealed body keeps in
// plaintext beside the ciphertext, for what the SQL reads of a body:
// labels (lists at an older resourceVersion), ownerReferences and
// finalizers (garbage collection's indexes), deletionTimestamp (a
// terminating namespace), resourceVersion (set by the statements). The
// name and namespace are the row's key anyway. Annotations (kubectl's
// last-applied-configuration holds the whole object) and managedFields
// are only in the ciphertext.
var sealedMetadata = []string{"name", "namespace", "uid", "labels", "ownerReferences", "finalizers", "deletionTimestamp", "resourceVersion"}

// transformer returns gr's Transformer; nil (and no further work) when no
// resource is encrypted or gr is not.
func (s *Store) transformer(gr engine.GroupResource) Transformer {
	if s.opts.Encryption == nil {
		return nil
	}
	return s.opts.Encryption(gr)
}

// authenticatedData is the row's key in etcd's form, as kube-apiserver
// binds its ciphertexts to the etcd key; suffix tells the remainder's
// ciphertext from the body's.
func authenticatedData(key engine.ObjectKey, suffix string) []byte {
	path := "/registry/"
	if key.Resource.Group != "" {
		path += key.Resource.Group + "/"
	}
	path += key.Resource.Resource + "/"
	if key.Namespace != "" {
		path += key.Namespace + "/"
	}
	return []byte(path + key.Name + suffix)
}

// seal returns body and remainder as they are stored for key: encrypted
// when t's first provider encrypts, unchanged when t is nil or identity
// is first.
func seal(ctx context.Context, t Transformer, key engine.ObjectKey, body, remainder []byte) ([]byte, []byte, error) {
	if t == nil {
		return body, remainder, nil
	}
	sealed, err := sealOne(ctx, t, body, authenticatedData(key, ""), plainMetadata(body))
	if err != nil || remainder == nil {
		return sealed, remainder, err
	}
	sealedRemainder, err := sealOne(ctx, t, remainder, authenticatedData(key, "#remainder"), nil)
	return sealed, sealedRemainder, err
}

// sealOne encrypts data into {"metadata": meta, "k8s:enc": base64}, meta
// omitted when nil; identity's output is data itself.
func sealOne(ctx context.Context, t Transformer, data, ad, meta []byte) ([]byte, error) {
	out, err := t.TransformToStorage(ctx, data, ad)
	if err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	if !bytes.HasPrefix(out, encryptedPrefix) {
		return out, nil
	}
	sealed := []byte("{")
	if meta != nil {
		sealed = append(append(append(sealed, `"metadata":`...), meta...), ',')
	}
	sealed = append(sealed, `"`+encryptedKey+`":"`...)
	sealed = base64.StdEncoding.AppendEncode(sealed, out)
	return append(sealed, `"}`...), nil
}

// plainMetadata is the object of body's sealedMetadata members.
func plainMetadata(body []byte) []byte {
	meta := gjson.GetBytes(body, "metadata")
	out := []byte("{}")
	for _, k := range sealedMetadata {
		if v := meta.Get(k); v.Exists() {
			out, _ = sjson.SetRawBytes(out, k, []byte(v.Raw)) // a plain key into an object: cannot fail
		}
	}
	return out
}

// open returns a stored body (compacted) as written, decrypted when
// sealed, with metadata.resourceVersion as the row holds it, and whether
// it is stale. Unsealed bodies go through t too, as kube-apiserver reads
// them: only an identity provider reads plaintext.
func open(ctx context.Context, t Transformer, key engine.ObjectKey, body []byte, suffix string) ([]byte, bool, error) {
	enc := gjson.GetBytes(body, encryptedKey)
	if !enc.Exists() {
		_, stale, err := t.TransformFromStorage(ctx, body, authenticatedData(key, suffix))
		if err != nil {
			return nil, false, fmt.Errorf("decrypt %s: %w", key.Resource, err)
		}
		return body, stale, nil
	}
	ciphertext, err := base64.StdEncoding.DecodeString(enc.Str)
	if err != nil {
		return nil, false, fmt.Errorf("decrypt %s: %w", key.Resource, err)
	}
	plain, stale, err := t.TransformFromStorage(ctx, ciphertext, authenticatedData(key, suffix))
	if err != nil {
		return nil, false, fmt.Errorf("decrypt %s: %w", key.Resource, err)
	}
	if rv := gjson.GetBytes(body, "metadata.resourceVersion"); rv.Exists() {
		if plain, err = sjson.SetBytes(plain, "metadata.resourceVersion", rv.String()); err != nil {
			return nil, false, fmt.Errorf("set metadata.resourceVersion: %w", err)
		}
	}
	return plain, stale, nil
}

// openObject decrypts obj's body and remainder in place (nothing when
// its resource is not encrypted), and marks it Stale when a write would
// store it otherwise.
func (s *Store) openObject(ctx context.Context, obj *engine.Object) error {
	t := s.transformer(obj.Key.Resource)
	if t == nil {
		return nil
	}
	return openWith(ctx, t, obj)
}

// openWith is openObject with t.
func openWith(ctx context.Context, t Transformer, obj *engine.Object) error {
	body, stale, err := open(ctx, t, obj.Key, obj.Body, "")
	if err != nil {
		return err
	}
	obj.Body, obj.Stale = body, stale
	if obj.Remainder == nil {
		return nil
	}
	obj.Remainder, stale, err = open(ctx, t, obj.Key, obj.Remainder, "#remainder")
	obj.Stale = obj.Stale || stale
	return err
}

// openBodies decrypts ev's object, then its previous state when it has one.
func openBodies(ctx context.Context, t Transformer, ev *engine.Event) error {
	if err := openWith(ctx, t, &ev.Object); err != nil || ev.Prev == nil {
		return err
	}
	prev := engine.Object{Key: ev.Object.Key, Body: ev.Prev, Remainder: ev.PrevRemainder}
	err := openWith(ctx, t, &prev)
	ev.Prev, ev.PrevRemainder = prev.Body, prev.Remainder
	return err
}

// openEvent decrypts ev's bodies in place; an event that does not decrypt
// becomes an ERROR event for its key, as kube-apiserver's watch reports
// an object it cannot transform.
func (s *Store) openEvent(ev *engine.Event) {
	t := s.transformer(ev.Object.Key.Resource)
	if t == nil || ev.Type == engine.EventError {
		return
	}
	ctx := context.Background() // kube's transformers use it for logs and metrics only
	if err := openBodies(ctx, t, ev); err != nil {
		s.opts.Logger.Error("watch event not decrypted", "resource", ev.Object.Key.Resource, "namespace", ev.Object.Key.Namespace,
			"name", ev.Object.Key.Name, "resourceVersion", ev.Object.ResourceVersion, "err", err)
		*ev = engine.Event{Type: engine.EventError, Object: engine.Object{Key: ev.Object.Key, ResourceVersion: ev.Object.ResourceVersion},
			Err: engine.Errorf(engine.CodeInternal, "unable to transform %s %s/%s", ev.Object.Key.Resource, ev.Object.Key.Namespace, ev.Object.Key.Name)}
	}
}

// listOpener adapts a List's options to encrypted bodies and returns what
// decrypts its objects; opts as they are and nil when nothing is
// encrypted. A sealed body keeps only sealedMetadata in plaintext, so for
// an encrypted resource (or a list of every resource):
//   - a metadata-only list reads whole bodies and cuts the metadata out
//     once decrypted, instead of in SQL;
//   - body fields outside sealedMetadata are not asked of SQL, which
//     would not find them: the resource layer evaluates selectable
//     fields again on the decrypted objects (see resource's filter).
func (s *Store) listOpener(ctx context.Context, opts engine.ListOptions) (engine.ListOptions, func(*engine.Object) error) {
	if s.opts.Encryption == nil {
		return opts, nil
	}
	all := opts.Resource == engine.GroupResource{}
	if !all && s.transformer(opts.Resource) == nil {
		return opts, nil
	}
	metadataOnly := opts.MetadataOnly
	opts.MetadataOnly = false
	if !all {
		opts.BodyFields = plainBodyFields(opts.BodyFields)
	}
	return opts, func(obj *engine.Object) error {
		if err := s.openObject(ctx, obj); err != nil {
			return err
		}
		if metadataOnly {
			obj.Body, obj.Remainder = metadataOf(obj.Body), nil
		}
		return nil
	}
}

// plainBodyFields are the requirements of fields a sealed body keeps in
// plaintext.
func plainBodyFields(fields []engine.FieldRequirement) []engine.FieldRequirement {
	var out []engine.FieldRequirement
	for _, f := range fields {
		member, _, _ := strings.Cut(strings.TrimPrefix(f.Path, "metadata."), ".")
		if strings.HasPrefix(f.Path, "metadata.") && slices.Contains(sealedMetadata, member) {
			out = append(out, f)
		}
	}
	return out
}

// metadataOf is body's metadata object ({} when none), as a metadata-only
// list returns it.
func metadataOf(body []byte) []byte {
	if m := gjson.GetBytes(body, "metadata"); m.IsObject() {
		return []byte(m.Raw)
	}
	return []byte("{}")
}
