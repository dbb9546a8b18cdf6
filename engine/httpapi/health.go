package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// readyTimeout bounds the storage check of /readyz.
const readyTimeout = 2 * time.Second

// healthCheck is one named check of a health endpoint.
type healthCheck struct {
	name string
	run  func(context.Context) error
}

// ping is the check every endpoint has: the process answers.
var ping = healthCheck{"ping", func(context.Context) error { return nil }}

// handleHealth serves a health endpoint (healthz, livez, readyz) as
// kube-apiserver does: "ok" while every check passes, or with ?verbose one
// line per check ("[+]ping ok") and a verdict; a failing check makes it
// 503 with every line, the reason withheld (it is logged).
func (s *Server) handleHealth(endpoint string, checks ...healthCheck) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		var out strings.Builder
		failed := false
		for _, c := range checks {
			if err := c.run(ctx); err != nil {
				s.logger.Warn(endpoint+" check failed", "check", c.name, "err", err)
				fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
				failed = true
			} else {
				fmt.Fprintf(&out, "[+]%s ok\n", c.name)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		switch {
		case failed:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(&out, "%s check failed\n", endpoint)
		case requestInfoFrom(r).Query.Has("verbose"):
			fmt.Fprintf(&out, "%s check passed\n", endpoint)
		default:
			out.Reset()
			out.WriteString("ok")
		}
		_, _ = w.Write([]byte(out.String()))
	}
}

// storageDown reports whether err says the storage cannot be reached, or
// the storage fails its readiness check now: asked only when a request
// failed for a reason dynapi did not expect. The check alone misses the
// request cut off by a restart of the database that is over by the time
// it is asked.
func (s *Server) storageDown(ctx context.Context, err error) bool {
	if s.down != nil && s.down(err) {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return s.ready(ctx) != nil
}
