package audit

import (
	"context"
	"maps"
	"sync"
)

// Annotations are the audit annotations the handling of one request adds
// (admission plug-ins' auditAnnotations), put into its event before the
// event's last stage is written.
type Annotations struct {
	mu sync.Mutex // validating plug-ins may add annotations concurrently
	m  map[string]string
}

type annotationsKey struct{}

// WithAnnotations returns ctx carrying a fresh Annotations for the
// request's event, and that Annotations.
func WithAnnotations(ctx context.Context) (context.Context, *Annotations) {
	a := &Annotations{}
	return context.WithValue(ctx, annotationsKey{}, a), a
}

// AddAnnotations adds kv to the annotations of the request ctx belongs
// to; nothing when the request is not audited. A key added before keeps
// its first value, as kube's attributes record keeps it.
func AddAnnotations(ctx context.Context, kv map[string]string) {
	a, ok := ctx.Value(annotationsKey{}).(*Annotations)
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

// CopyInto adds the annotations to ev's.
func (a *Annotations) CopyInto(ev *Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.m) == 0 {
		return
	}
	if ev.Annotations == nil {
		ev.Annotations = map[string]string{}
	}
	maps.Copy(ev.Annotations, a.m)
}
