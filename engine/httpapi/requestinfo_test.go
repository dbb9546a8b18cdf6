package httpapi

import (
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
)

// TestParseRequestInfo: the attributes of a request, as kube-apiserver's
// RequestInfoFactory reads them, from the method, path and query alone.
func TestParseRequestInfo(t *testing.T) {
	t.Parallel()
	const w = "/apis/shop.example.com/v1"
	tests := []struct {
		method, target string
		want           requestInfo
	}{
		{"GET", "/healthz", requestInfo{Path: "/healthz", Verb: "get"}},
		{"POST", "/metrics", requestInfo{Path: "/metrics", Verb: "post"}},
		{"GET", "/api", requestInfo{Path: "/api", Verb: "get"}},
		{"GET", "/api/v1", requestInfo{Path: "/api/v1", Verb: "get"}},
		{"GET", "/apis/shop.example.com", requestInfo{Path: "/apis/shop.example.com", Verb: "get"}},
		{"GET", w, requestInfo{Path: w, Verb: "get"}},
		{"GET", "/openapi/v3/apis/shop.example.com/v1", requestInfo{Path: "/openapi/v3/apis/shop.example.com/v1", Verb: "get"}},
		{"GET", w + "/widgets", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=true", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=1&limit=5", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=false", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=0", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		// watch is read as kube's query conversion reads a bool, from the
		// decoded query: an escaped name, an empty value and any value but
		// "false" and "0" (in any case) are watches.
		{"GET", w + "/widgets?%77atch=1", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=f", res(w+"/widgets", "watch", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=FALSE", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?watch=0&watch=1", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/widgets?allowWatchBookmarks=true", res(w+"/widgets", "list", "shop.example.com", "", "widgets", "", "")},
		{"GET", w + "/namespaces/default/widgets", inNS(res(w+"/namespaces/default/widgets", "list", "shop.example.com", "default", "widgets", "", ""))},
		{"HEAD", w + "/namespaces/default/widgets", inNS(res(w+"/namespaces/default/widgets", "list", "shop.example.com", "default", "widgets", "", ""))},
		{"POST", w + "/namespaces/default/widgets", inNS(res(w+"/namespaces/default/widgets", "create", "shop.example.com", "default", "widgets", "", ""))},
		{"DELETE", w + "/namespaces/default/widgets", inNS(res(w+"/namespaces/default/widgets", "deletecollection", "shop.example.com", "default", "widgets", "", ""))},
		{"GET", w + "/namespaces/default/widgets/a", inNS(res(w+"/namespaces/default/widgets/a", "get", "shop.example.com", "default", "widgets", "a", ""))},
		{"GET", w + "/namespaces/default/widgets/a?watch=true", inNS(res(w+"/namespaces/default/widgets/a", "get", "shop.example.com", "default", "widgets", "a", ""))},
		{"PUT", w + "/namespaces/default/widgets/a", inNS(res(w+"/namespaces/default/widgets/a", "update", "shop.example.com", "default", "widgets", "a", ""))},
		{"PATCH", w + "/namespaces/default/widgets/a", inNS(res(w+"/namespaces/default/widgets/a", "patch", "shop.example.com", "default", "widgets", "a", ""))},
		{"DELETE", w + "/namespaces/default/widgets/a", inNS(res(w+"/namespaces/default/widgets/a", "delete", "shop.example.com", "default", "widgets", "a", ""))},
		{"PUT", w + "/namespaces/default/widgets/a/status", inNS(res(w+"/namespaces/default/widgets/a/status", "update", "shop.example.com", "default", "widgets", "a", "status"))},
		{"OPTIONS", w + "/namespaces/default/widgets/a", inNS(res(w+"/namespaces/default/widgets/a", "", "shop.example.com", "default", "widgets", "a", ""))},
		// Trailing and doubled slashes are dropped, as the router always did here.
		{"GET", w + "//widgets/", res(w+"//widgets/", "list", "shop.example.com", "", "widgets", "", "")},
		// The core group, and the namespace object, its status and finalize.
		{"GET", "/api/v1/namespaces", core("/api/v1/namespaces", "list", "", "namespaces", "", "")},
		{"GET", "/api/v1/namespaces/ns", core("/api/v1/namespaces/ns", "get", "ns", "namespaces", "ns", "")},
		{"DELETE", "/api/v1/namespaces/ns", core("/api/v1/namespaces/ns", "delete", "ns", "namespaces", "ns", "")},
		{"PATCH", "/api/v1/namespaces/ns/status", core("/api/v1/namespaces/ns/status", "patch", "ns", "namespaces", "ns", "status")},
		{"PUT", "/api/v1/namespaces/ns/finalize", core("/api/v1/namespaces/ns/finalize", "update", "ns", "namespaces", "ns", "finalize")},
		{"GET", "/api/v1/namespaces/ns/configmaps", inNS(core("/api/v1/namespaces/ns/configmaps", "list", "ns", "configmaps", "", ""))},
		// A cluster-scoped resource asked for inside a namespace: only
		// inNamespace tells it from the namespace object.
		{"GET", "/api/v1/namespaces/ns/namespaces/ns", inNS(core("/api/v1/namespaces/ns/namespaces/ns", "get", "ns", "namespaces", "ns", ""))},
		// A list or watch of one name by field selector names it, as kube's
		// RequestInfo does; other selectors and other verbs do not.
		{"GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dca", selected(inNS(core("/api/v1/namespaces/ns/secrets", "list", "ns", "secrets", "", "")), "ca")},
		{"GET", "/api/v1/namespaces/ns/secrets?watch=1&fieldSelector=metadata.name%3D%3Dca", selected(inNS(core("/api/v1/namespaces/ns/secrets", "watch", "ns", "secrets", "", "")), "ca")},
		{"GET", "/api/v1/secrets?fieldSelector=metadata.name%3Dca,type%3Dx", selected(core("/api/v1/secrets", "list", "", "secrets", "", ""), "ca")},
		{"GET", "/api/v1/secrets?fieldSelector=metadata.name!%3Dca", core("/api/v1/secrets", "list", "", "secrets", "", "")},
		{"GET", "/api/v1/secrets?fieldSelector=metadata.name%3D..", core("/api/v1/secrets", "list", "", "secrets", "", "")},
		{"GET", "/api/v1/secrets?fieldSelector=metadata.namespace%3Dca", core("/api/v1/secrets", "list", "", "secrets", "", "")},
		{"DELETE", "/api/v1/secrets?fieldSelector=metadata.name%3Dca", core("/api/v1/secrets", "deletecollection", "", "secrets", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			t.Parallel()
			got := *requestInfoFrom(httptest.NewRequest(tt.method, tt.target, nil))
			got.Parts, got.buf, got.Query = slices.Clone(got.Parts), [8]string{}, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// res is the requestInfo of a named group's resource request.
func res(path, verb, group, namespace, resource, name, subresource string) requestInfo {
	info := requestInfo{IsResourceRequest: true, Path: path, Verb: verb, APIPrefix: "apis", APIGroup: group, APIVersion: "v1",
		Namespace: namespace, Resource: resource, Name: name, Subresource: subresource}
	info.Parts = append(info.Parts, resource)
	if name != "" {
		info.Parts = append(info.Parts, name)
	}
	if subresource != "" {
		info.Parts = append(info.Parts, subresource)
	}
	return info
}

// core is the requestInfo of a core group resource request.
func core(path, verb, namespace, resource, name, subresource string) requestInfo {
	info := res(path, verb, "", namespace, resource, name, subresource)
	info.APIPrefix = "api"
	return info
}

// selected sets the name a list's field selector requires.
func selected(info requestInfo, name string) requestInfo {
	info.SelectedName = name
	return info
}

// inNS marks a requestInfo whose path went through namespaces/{ns}/.
func inNS(info requestInfo) requestInfo {
	info.inNamespace = true
	return info
}
