package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// readyTimeout bounds the storage check of /readyz.
const readyTimeout = 2 * time.Second

// HealthCheck is a named check of the health endpoints, beside ping
// and the database's: the composition root adds one per thing the server
// needs running (definitions loaded, each background controller).
type HealthCheck struct {
	// Name is the line's name ("[+]name ok") and the path of the check
	// alone (/readyz/name).
	Name  string
	Check func(context.Context) error
	// Live puts the check in /livez too: only what a restart of the
	// process may mend (a stopped controller), not the database.
	Live bool
}

// ping is the check every endpoint has: the process answers.
var ping = HealthCheck{Name: "ping", Check: func(context.Context) error { return nil }, Live: true}

// errDatabaseDown is what /readyz/database says of a database that does
// not answer; the reason, which may name hosts, goes to the log.
var errDatabaseDown = errors.New("the database does not answer")

// healthChecks are the checks of endpoint (healthz, livez or readyz), in
// kube-apiserver's order: ping, the storage, then the others.
func (s *Server) healthChecks(endpoint string) []HealthCheck {
	checks := []HealthCheck{ping}
	if endpoint != "livez" { // a restart does not bring the database back
		checks = append(checks, HealthCheck{Name: "database", Check: s.databaseCheck})
	}
	if s.checks == nil {
		return checks
	}
	for _, c := range s.checks() {
		if endpoint != "livez" || c.Live {
			checks = append(checks, c)
		}
	}
	return checks
}

func (s *Server) databaseCheck(ctx context.Context) error {
	if err := s.ready(ctx); err != nil {
		s.logger.Warn("database check failed", "err", err)
		return errDatabaseDown
	}
	return nil
}

// handleHealth serves a health endpoint (healthz, livez, readyz) as
// kube-apiserver's healthz.handleRootHealth does: "ok" while every check
// passes, or with ?verbose one line per check ("[+]ping ok") and a
// verdict; a failing check makes it 500 with every line, the reason
// withheld (it is logged). ?exclude=name leaves a check out ("[+]name
// excluded: ok"), and a name no check has is warned of.
func (s *Server) handleHealth(endpoint string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		query := requestInfoFrom(r).Query
		lines, failed := s.runHealthChecks(ctx, endpoint, query["exclude"])
		setPlainText(w)
		switch {
		case failed:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", lines, endpoint)
		case query.Has("verbose"):
			fmt.Fprintf(w, "%s%s check passed\n", lines, endpoint)
		default:
			fmt.Fprint(w, "ok")
		}
	}
}

// runHealthChecks runs the checks of endpoint but those excluded, and
// returns their lines in kube's words and whether one failed.
func (s *Server) runHealthChecks(ctx context.Context, endpoint string, excluded []string) (string, bool) {
	var out strings.Builder
	failed := false
	unknown := slices.Clone(excluded)
	for _, c := range s.healthChecks(endpoint) {
		if slices.Contains(excluded, c.Name) {
			unknown = slices.DeleteFunc(unknown, func(name string) bool { return name == c.Name })
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name)
		} else if err := c.Check(ctx); err != nil {
			s.logger.Warn(endpoint+" check failed", "check", c.Name, "err", err)
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name)
			failed = true
		} else {
			fmt.Fprintf(&out, "[+]%s ok\n", c.Name)
		}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", quoted(unknown))
	}
	return out.String(), failed
}

// quoted is kube's formatQuoted: the names sorted once (kube lists a
// set), each quoted, joined by commas.
func quoted(names []string) string {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	for i, name := range names {
		names[i] = strconv.Quote(name)
	}
	return strings.Join(names, ",")
}

// handleHealthCheck serves one check of endpoint alone (/readyz/ping), as
// kube-apiserver does: "ok", or 500 with the reason; 404 for a name the
// endpoint has not.
func (s *Server) handleHealthCheck(endpoint string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := chi.URLParam(r, "*")
		checks := s.healthChecks(endpoint)
		i := slices.IndexFunc(checks, func(c HealthCheck) bool { return c.Name == name })
		if i < 0 {
			s.writeError(w, r, errNotFoundPath)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		setPlainText(w)
		if err := checks[i].Check(ctx); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "internal server error: %v\n", err)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
}

func setPlainText(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
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
