package httpapi

import (
	"net/http"
	"net/url"

	"github.com/dynapi/dynapi/engine"
)

// refuseBadQueries answers 400 to a request whose query string does not
// parse, before anything else runs. url.URL.Query drops what it cannot parse
// (a stray ';', a bad escape, more parameters than Go's limit) and hands back
// the rest: a labelSelector or dryRun lost that way would turn a narrow
// delete into a whole-namespace one. A request is refused, never
// reinterpreted.
func refuseBadQueries(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			writeJSON(w, http.StatusBadRequest, statusFor(engine.Errorf(engine.CodeBadRequest,
				"the query string could not be parsed: %v", err)))
			return
		}
		next.ServeHTTP(w, r)
	})
}
