package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// request is a resource request resolved against one snapshot.
type request struct {
	target      resource.Target
	name        string
	subresource string
}

// namespaceSubresources are the subresources of a namespace itself, which
// kube-apiserver tells apart from a resource inside the namespace.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// resourceHandler serves one group version: its discovery document at the
// root, resource paths below it.
func (s *Server) resourceHandler(named bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		group, version := "", chi.URLParam(r, "version")
		if named {
			group = chi.URLParam(r, "group")
		}
		snap := s.snapshots.Load()
		parts := splitPath(chi.URLParam(r, "*"))
		if len(parts) == 0 {
			if r.Method != http.MethodGet {
				s.writeError(w, r, errMethodNotAllowed(r))
				return
			}
			s.writeResourceList(w, r, snap, group, version)
			return
		}
		req, ok := resolve(snap, group, version, parts)
		if !ok {
			s.writeError(w, r, errNotFoundPath)
			return
		}
		s.dispatch(w, r, req)
	}
}

// resolve parses the path below a group version the way kube-apiserver's
// RequestInfoFactory does: [namespaces/{ns}/]{resource}[/{name}[/{subresource}]].
func resolve(snap *registry.Snapshot, group, version string, parts []string) (request, bool) {
	namespace := ""
	if !storableSegments(parts) {
		return request{}, false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" && !(len(parts) == 3 && namespaceSubresources[parts[2]]) {
		namespace, parts = parts[1], parts[2:]
	}
	if len(parts) > 3 {
		return request{}, false
	}
	res, ver, ok := snap.Lookup(group, version, parts[0])
	if !ok || (namespace != "" && !res.Namespaced) {
		return request{}, false
	}
	req := request{target: resource.Target{Resource: res, Version: ver, Namespace: namespace}}
	if len(parts) > 1 {
		req.name = parts[1]
	}
	if len(parts) > 2 {
		req.subresource = parts[2]
		req.target.Subresource = parts[2]
	}
	// A namespaced object is only addressed inside its namespace; the
	// namespace-less path of a namespaced resource is a list across namespaces.
	if res.Namespaced && namespace == "" && req.name != "" {
		return request{}, false
	}
	return req, true
}

func splitPath(p string) []string {
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return parts
}

// dispatch picks the handler for the verb. Every answer about a deprecated
// version carries its deprecation warning, as kube-apiserver sends it.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, req request) {
	if warning := req.target.Resource.DeprecationWarning(req.target.Version); warning != "" {
		writeWarnings(w, []string{warning})
	}
	if req.subresource != "" {
		s.dispatchSubresource(w, r, req)
		return
	}
	crossNamespace := req.target.Resource.Namespaced && req.target.Namespace == ""
	switch {
	case req.name == "" && r.Method == http.MethodGet:
		s.handleList(w, r, req)
	case req.name == "" && r.Method == http.MethodPost && !crossNamespace:
		s.handleCreate(w, r, req)
	case req.name == "" && r.Method == http.MethodDelete && !crossNamespace && s.service.Strategy(req.target.GroupResource()).DeletesCollections():
		s.handleDeleteCollection(w, r, req)
	case req.name != "" && r.Method == http.MethodGet:
		s.handleGet(w, r, req)
	case req.name != "" && r.Method == http.MethodPut:
		s.handleUpdate(w, r, req)
	case req.name != "" && r.Method == http.MethodPatch:
		s.handlePatch(w, r, req)
	case req.name != "" && r.Method == http.MethodDelete:
		s.handleDelete(w, r, req)
	default:
		s.writeError(w, r, errMethodNotAllowed(r))
	}
}

// dispatchSubresource serves /{name}/status of versions that declare it
// (get reads the whole object, update and patch write only its status) and
// the subresources of the resource's strategy (update only: a namespace's
// /finalize).
func (s *Server) dispatchSubresource(w http.ResponseWriter, r *http.Request, req request) {
	if slices.Contains(s.service.Strategy(req.target.GroupResource()).Subresources(), req.subresource) {
		if r.Method != http.MethodPut {
			s.writeError(w, r, errMethodNotAllowed(r))
			return
		}
		s.handleUpdate(w, r, req)
		return
	}
	if req.subresource != "status" || !req.target.Version.Subresources.Status {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.handleGet(w, r, req)
	case http.MethodPut:
		s.handleUpdate(w, r, req)
	case http.MethodPatch:
		s.handlePatch(w, r, req)
	default:
		s.writeError(w, r, errMethodNotAllowed(r))
	}
}
