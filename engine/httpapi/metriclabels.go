package httpapi

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
)

// requestLabels are the labels of one request's metrics, computed as
// kube-apiserver's endpoints/metrics package does.
type requestLabels struct {
	verb, dryRun, group, version, resource, subresource, scope string
}

// labelsOf labels a request. Every value comes from a bounded set, so
// that no client can grow the metrics without end: the group, version and
// resource of a resource request only once the handler found them served
// and its subresource, if any, is one dynapi serves (status, finalize):
// all empty for a path that names nothing served; the subresource of a non-resource request is the
// route it took ("/healthz", "/openapi/v3/*"), as kube-apiserver puts the
// path there for its fixed paths, and empty when no route matched.
func labelsOf(r *http.Request, info *requestInfo) requestLabels {
	l := requestLabels{verb: metricVerb(r, info), dryRun: dryRunLabel(info.Query["dryRun"]), scope: scopeOf(info)}
	switch {
	case info.IsResourceRequest && info.served && (info.Subresource == "" || namespaceSubresources[info.Subresource]):
		l.group, l.version, l.resource, l.subresource = info.APIGroup, info.APIVersion, info.Resource, info.Subresource
	case !info.IsResourceRequest:
		l.subresource = chi.RouteContext(r.Context()).RoutePattern()
	}
	return l
}

// scopeOf is kube-apiserver's CleanScope: "resource" for one object (a
// create too), "namespace" for a collection in a namespace, "cluster" for
// one across the cluster, "" for a non-resource request.
func scopeOf(info *requestInfo) string {
	switch {
	case info.Name != "" || info.Verb == "create":
		return "resource"
	case info.Namespace != "":
		return "namespace"
	case info.IsResourceRequest:
		return "cluster"
	}
	return ""
}

// metricVerb is the verb label kube-apiserver reports: the upper-case
// HTTP method, except LIST for a GET of a collection, WATCH for a watch,
// APPLY for a server-side apply patch, and "other" for a method it does
// not know. kube's own dashboards and alerts select on these (for
// instance verb=~"POST|PUT|PATCH|DELETE" for writes), not on the
// lower-case verbs of requestInfo.
func metricVerb(r *http.Request, info *requestInfo) string {
	if !info.IsResourceRequest {
		return methodVerb(r.Method)
	}
	switch info.Verb {
	case "get":
		return "GET"
	case "list":
		return "LIST"
	case "watch":
		return "WATCH"
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			return "APPLY"
		}
		return "PATCH"
	case "delete", "deletecollection":
		return "DELETE"
	}
	return "other"
}

// methodVerb is the verb label of a non-resource request.
func methodVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "GET"
	case http.MethodPost:
		return "POST"
	case http.MethodPut:
		return "PUT"
	case http.MethodPatch:
		return "PATCH"
	case http.MethodDelete:
		return "DELETE"
	case http.MethodConnect:
		return "CONNECT"
	}
	return "other"
}

// dryRunLabel is kube-apiserver's dry_run label: empty without dryRun,
// "All" for dryRun=All (the one value there is), "invalid" otherwise.
func dryRunLabel(values []string) string {
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	if len(values) == 0 {
		return ""
	}
	return "All"
}

// codeStrings are the status codes as labels, made once.
var codeStrings = func() (s [600]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func codeString(code int) string {
	if code >= 0 && code < len(codeStrings) {
		return codeStrings[code]
	}
	return strconv.Itoa(code)
}
