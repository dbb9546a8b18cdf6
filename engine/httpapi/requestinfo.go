package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/fields"
)

// requestInfo is what a request asks for, read from its method, path and
// query alone, as kube-apiserver's RequestInfo: resolved once, by the first
// middleware after the query is known to parse, and read by every later
// stage (authentication, authorization, audit, limits, metrics) from the
// request context. It needs no registry snapshot: whether the resource
// exists is the handler's question.
//
// The fields keep kube-apiserver's names and meanings.
type requestInfo struct {
	// IsResourceRequest is set for /api/{version}/... and
	// /apis/{group}/{version}/... below the group version; everything
	// else (discovery, health, OpenAPI, /metrics) is a non-resource request.
	IsResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb is kube's verb for a resource request (get, list, watch, create,
	// update, patch, delete, deletecollection; empty for another method),
	// and the lowercased HTTP method for a non-resource request.
	Verb string
	// APIPrefix is "api" or "apis".
	APIPrefix  string
	APIGroup   string
	APIVersion string
	// Namespace is the namespace the path names: the one of
	// namespaces/{ns}/..., or the namespace object itself for
	// /api/v1/namespaces/{ns}[/status|/finalize].
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// SelectedName is kube's Name of a list or watch whose field selector
	// requires metadata.name to be one name: the authorizer sees such a
	// request as one for that object (a Role's resourceNames allow it),
	// while the handler still serves it as a list, by the path.
	SelectedName string
	// Parts are the path segments from the resource on:
	// {resource}[/{name}[/{subresource}[/...]]].
	Parts []string
	// Query is the decoded query string (parseQuery): the one decoding of
	// it that every stage reads.
	Query url.Values

	// queryErr says why the query did not parse (Query is then empty):
	// refuseBadQueries answers it, after audit.
	queryErr error
	// inNamespace is set when the path went through namespaces/{ns}/ to
	// a resource inside the namespace; Namespace alone does not tell
	// /api/v1/namespaces/a (the namespace a) from
	// /api/v1/namespaces/a/namespaces/a (a cluster-scoped resource asked
	// for inside a namespace, which no route serves).
	inNamespace bool
	// served is set by the handler once the resource resolved against the
	// registry snapshot: only then are the names of the path bounded
	// enough to become metric labels.
	served bool
	// user is who authenticate found the request comes from ("": not
	// known), for the access log, which is written outside authentication.
	user string
	// terminated is set when the server refused the request in
	// self-defense (limits, timeout): apiserver_request_terminations_total.
	terminated bool
	// buf holds the path segments of a path of up to 8 of them (the
	// longest served: apis/{group}/{version}/namespaces/{ns}/{resource}/{name}/status),
	// so that they take no allocation of their own.
	buf [8]string
}

// namespaceSubresources are the subresources of a namespace itself, which
// kube-apiserver tells apart from a resource inside the namespace.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// requestInfoKey is the context key of the *requestInfo.
type requestInfoKey struct{}

// requestInfoFrom returns the request's attributes; a request that did not
// pass withRequestInfo (a handler called directly, in a test) gets them
// parsed on the spot.
func requestInfoFrom(r *http.Request) *requestInfo {
	if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		return info
	}
	query, _ := parseQuery(r.URL.RawQuery)
	return parseRequestInfo(r, query)
}

// withRequestInfo resolves the request's attributes once and carries them
// in the request context for every later stage. A query that does not
// parse leaves them without one, and refuseBadQueries answers 400.
func withRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query, err := parseQuery(r.URL.RawQuery)
		info := parseRequestInfo(r, query)
		info.queryErr = err
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info)))
	})
}

// parseRequestInfo reads a request the way kube-apiserver's
// RequestInfoFactory does, from the decoded URL path. The differences:
// empty path segments are dropped (as the router always did here); the
// legacy /watch/ and /proxy/ path prefixes are not special, since no
// route serves them; and a list's fieldSelector=metadata.name=x becomes
// SelectedName rather than Name, so that the path alone routes the request.
func parseRequestInfo(r *http.Request, query url.Values) *requestInfo {
	info := &requestInfo{Path: r.URL.Path, Verb: lowerMethod(r.Method), Query: query}
	parts := info.split(r.URL.Path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	prefix, parts := parts[0], parts[1:]
	group := ""
	if prefix == "apis" {
		if len(parts) < 3 {
			return info
		}
		group, parts = parts[0], parts[1:]
	}
	info.IsResourceRequest, info.APIPrefix, info.APIGroup, info.APIVersion = true, prefix, group, parts[0]
	info.setParts(parts[1:])
	info.Verb = resourceVerb(r.Method, query, info.Name != "")
	if info.Verb == "list" || info.Verb == "watch" {
		info.SelectedName = selectedName(query)
	}
	return info
}

// selectedName is the name a field selector requires metadata.name to
// be, as kube's RequestInfoFactory reads it: "" when the selector does not
// parse, does not require one name, or names what no path segment can be.
func selectedName(query url.Values) string {
	raw := query.Get("fieldSelector")
	if raw == "" {
		return ""
	}
	sel, err := fields.ParseSelector(raw)
	if err != nil {
		return ""
	}
	name, ok := sel.RequiresExactMatch("metadata.name")
	if !ok || len(content.IsPathSegmentName(name)) != 0 {
		return ""
	}
	return name
}

// setParts reads [namespaces/{ns}/]{resource}[/{name}[/{subresource}]].
func (info *requestInfo) setParts(parts []string) {
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			info.inNamespace, parts = true, parts[2:]
		}
	}
	info.Parts = parts
	info.Resource = parts[0]
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
}

// resourceVerb is kube's verb of a resource request: a GET without a name
// is a list, or a watch when the watch parameter reads as true (queryBool:
// "watch=" and "watch=f" are watches, as in kube); a DELETE without a name
// is a deletecollection.
func resourceVerb(method string, query url.Values, named bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		if named {
			return "get"
		}
		if queryBool(query["watch"]) {
			return "watch"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	return ""
}

// split returns the non-empty segments of a path, in info.buf while
// they fit.
func (info *requestInfo) split(p string) []string {
	parts := info.buf[:0]
	for s := range strings.SplitSeq(p, "/") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return parts
}

// lowerMethod is strings.ToLower(method) without an allocation for the
// methods there are.
func lowerMethod(method string) string {
	switch method {
	case http.MethodGet:
		return "get"
	case http.MethodHead:
		return "head"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodOptions:
		return "options"
	}
	return strings.ToLower(method)
}
