package engine

import (
	"context"
	"maps"
	"sync"
)

// AuditAnnotations are the audit annotations the handling of one request
// adds (admission plug-ins' auditAnnotations), which the HTTP chain puts
// into the request's audit event before its last stage is written. They
// ride on the request's context, as its user does, so that the layers
// below the chain add to them without knowing of audit.
type AuditAnnotations struct {
	mu sync.Mutex // validating plug-ins may add annotations concurrently
	m  map[string]string
}

type auditAnnotationsKey struct{}

// WithAuditAnnotations returns ctx carrying a fresh AuditAnnotations for
// the request's event, and that AuditAnnotations.
func WithAuditAnnotations(ctx context.Context) (context.Context, *AuditAnnotations) {
	a := &AuditAnnotations{}
	return context.WithValue(ctx, auditAnnotationsKey{}, a), a
}

// AddAuditAnnotations adds kv to the annotations of the request ctx
// belongs to; nothing when the request is not audited. A key added before
// keeps its first value, as kube's attributes record keeps it.
func AddAuditAnnotations(ctx context.Context, kv map[string]string) {
	a, ok := ctx.Value(auditAnnotationsKey{}).(*AuditAnnotations)
	if !ok || len(kv) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]string{}
	}
	for k, v := range kv {
		if _, set := a.m[k]; !set {
			a.m[k] = v
		}
	}
}

// CopyInto adds the annotations to into (made when nil and there are
// any) and returns it.
func (a *AuditAnnotations) CopyInto(into map[string]string) map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.m) == 0 {
		return into
	}
	if into == nil {
		into = map[string]string{}
	}
	maps.Copy(into, a.m)
	return into
}
