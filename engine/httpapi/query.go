package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

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
		query, err := url.ParseQuery(r.URL.RawQuery)
		if err == nil {
			err = unstorableParameter(query)
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, statusFor(engine.Errorf(engine.CodeBadRequest,
				"the query string could not be parsed: %v", err)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unstorableParameter refuses a parameter whose name or value is not
// UTF-8 or holds U+0000: no stored value is so (PostgreSQL's text cannot
// hold it), and a selector on it would reach the database as an error.
func unstorableParameter(query url.Values) error {
	for name, values := range query {
		if unstorableText(name) || slices.ContainsFunc(values, unstorableText) {
			return fmt.Errorf("parameter %q: not UTF-8, or holds U+0000", strings.ToValidUTF8(name, "\ufffd"))
		}
	}
	return nil
}

func unstorableText(s string) bool { return !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 }
