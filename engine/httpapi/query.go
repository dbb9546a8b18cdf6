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

// parseQuery decodes a request's query string, the one time it is decoded:
// withRequestInfo keeps the values in the request's attributes, and every
// later stage (authorization, audit, limits, metrics, the handler) reads
// them there. Two readings of one query could disagree ("?%77atch=1" is a
// watch to one parser and a list to another), and a request must be
// authorized as what it is served as.
//
// A query that does not parse is an error, never reinterpreted:
// url.ParseQuery drops what it cannot parse (a stray ';', a bad escape,
// more parameters than Go's limit) and hands back the rest, and a
// labelSelector or dryRun lost that way would turn a narrow delete into a
// whole-namespace one.
func parseQuery(raw string) (url.Values, error) {
	if raw == "" {
		return nil, nil // most requests: no map to make (a nil url.Values reads as empty)
	}
	query, err := url.ParseQuery(raw)
	if err != nil {
		return nil, err
	}
	if err := unstorableParameter(query); err != nil {
		return nil, err
	}
	return query, nil
}

// refuseBadQueries answers 400 to a request whose query did not parse
// (requestInfo's queryErr). It runs after authentication and audit, so
// the refusal is recorded; nothing before it reads the query, which is
// empty in the request's attributes then.
func refuseBadQueries(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := requestInfoFrom(r).queryErr; err != nil {
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

// queryBool reads a boolean parameter as kube-apiserver's query conversion
// does (runtime.Convert_Slice_string_To_bool): absent is false; the first
// value "0" or "false" (in any case) is false; anything else, the empty
// string included, is true.
func queryBool(values []string) bool {
	if len(values) == 0 {
		return false
	}
	return values[0] != "0" && !strings.EqualFold(values[0], "false")
}
