package crd

import (
	"context"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// The server's own publication of a file's kind (see publish.go) is
// created as a client's definition is, through the pipeline, with two
// differences that no client can ask for: it is created with its status
// (Established, DefinitionFile), where kube's strategy drops the status
// of a create; and it is not loaded once more to be checked, as the
// registry loaded its kind from the file already. At 1,000 definition
// files, a status write after each create and the check's load were most
// of a first start's work.

// publishingKey is the context key of the publisher's writes: unexported,
// so that only this package marks a write as the server's own.
type publishingKey struct{}

// publishing returns ctx, marking the writes made with it as the
// publisher's.
func publishing(ctx context.Context) context.Context {
	return context.WithValue(ctx, publishingKey{}, true)
}

// isPublishing reports whether ctx is the publisher's.
func isPublishing(ctx context.Context) bool {
	return ctx.Value(publishingKey{}) != nil
}

// PrepareForCreate drops the status of a new definition, as kube-apiserver
// does, but for the publisher's, which comes with the status it has from
// the start.
func (s Strategy) PrepareForCreate(w *resource.Write) error {
	if isPublishing(w.Context()) {
		return nil
	}
	return s.CustomResource.PrepareForCreate(w)
}

// check is Check, which the publisher's definition of a file's kind
// (derived from the resource snap serves) passes without it: the file
// was loaded, and what it derives loads alike (TestDerivedMatchesItsFile).
func check(ctx context.Context, snap *registry.Snapshot, obj []byte) ([]engine.FieldError, []string) {
	if r, ok := fileKind(snap, obj); ok && isPublishing(ctx) && isDerived(r, obj) {
		return nil, nil
	}
	return Check(obj)
}
