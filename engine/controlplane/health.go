package controlplane

import (
	"context"
	"errors"
	"sync"

	"github.com/dynapi/dynapi/engine/httpapi"
)

// errStopped is the failure of a controller whose work returned before
// Close: it no longer does what it is there for.
var errStopped = errors.New("stopped")

// health are the named checks Start adds to /healthz, /livez and
// /readyz: the definitions loaded, and each background controller
// started and still running, as kube-apiserver lists its post-start hooks.
type health struct {
	mu     sync.Mutex
	checks []httpapi.HealthCheck
}

// errNotLoaded is the failure of the definitions check before Start has
// loaded the definition files and the stored CustomResourceDefinitions.
var errNotLoaded = errors.New("not loaded yet")

// loaded adds the check "definitions", which passes once done is closed.
func (h *health) loaded(done <-chan struct{}) {
	h.add(httpapi.HealthCheck{Name: "definitions", Check: func(context.Context) error {
		select {
		case <-done:
			return nil
		default:
			return errNotLoaded
		}
	}})
}

// list is httpapi.Options.HealthChecks.
func (h *health) list() []httpapi.HealthCheck {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.checks
}

func (h *health) add(c httpapi.HealthCheck) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A copy: a request may range over the slice it was handed meanwhile.
	h.checks = append(h.checks[:len(h.checks):len(h.checks)], c)
}

// goController runs f beside the control plane as Go does, and adds the
// check "poststarthook/"+name, which fails once f returns before Close.
func (c *ControlPlane) goController(ctx context.Context, name string, f func(context.Context)) {
	stopping := make(chan struct{})
	returned := make(chan struct{})
	// Before the stop of f: Close marks it stopping, then ends it.
	c.stops = append(c.stops, func() { close(stopping) })
	c.Go(ctx, func(ctx context.Context) {
		defer close(returned)
		f(ctx)
	})
	c.health.add(httpapi.HealthCheck{Name: "poststarthook/" + name, Live: true, Check: func(context.Context) error {
		select {
		case <-returned:
			select {
			case <-stopping:
				return nil // Close ended it
			default:
				return errStopped
			}
		default:
			return nil
		}
	}})
}
