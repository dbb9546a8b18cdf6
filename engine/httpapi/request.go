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

// resourceHandler serves one group version: its discovery document at the
// root, resource paths below it. Below the root, what is served is what
// the request's attributes name (requestInfo), so that every stage of the
// chain sees the resource the handler serves.
func (s *Server) resourceHandler(named bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		snap := s.snapshots.Load()
		if strings.Trim(chi.URLParam(r, "*"), "/") == "" {
			s.serveGroupVersion(w, r, snap, named)
			return
		}
		info := requestInfoFrom(r)
		req, ok := resolve(snap, info)
		if !ok {
			s.writeError(w, r, errNotFoundPath)
			return
		}
		info.served = true
		s.dispatch(w, r, req)
	}
}

// serveGroupVersion serves the discovery document of /api/{version} or
// /apis/{group}/{version}.
func (s *Server) serveGroupVersion(w http.ResponseWriter, r *http.Request, snap *registry.Snapshot, named bool) {
	if r.Method != http.MethodGet {
		s.writeError(w, r, errMethodNotAllowed(r))
		return
	}
	group, version := "", chi.URLParam(r, "version")
	if named {
		group = chi.URLParam(r, "group")
	}
	s.writeResourceList(w, r, snap, group, version)
}

// resolve finds the resource a request names in the snapshot:
// [namespaces/{ns}/]{resource}[/{name}[/{subresource}]] below a group
// version, with the path read once by parseRequestInfo.
func resolve(snap *registry.Snapshot, info *requestInfo) (request, bool) {
	if !info.IsResourceRequest || len(info.Parts) > 3 {
		return request{}, false
	}
	res, ver, ok := snap.Lookup(info.APIGroup, info.APIVersion, info.Resource)
	if !ok || (info.inNamespace && !res.Namespaced) {
		return request{}, false
	}
	namespace := ""
	if !storableSegments([]string{info.Namespace, info.Name}) {
		return request{}, false
	}
	if info.inNamespace {
		namespace = info.Namespace
	}
	// A namespaced object is only addressed inside its namespace; the
	// namespace-less path of a namespaced resource is a list across namespaces.
	if res.Namespaced && namespace == "" && info.Name != "" {
		return request{}, false
	}
	return request{target: resource.Target{Resource: res, Version: ver, Namespace: namespace, Subresource: info.Subresource},
		name: info.Name, subresource: info.Subresource}, true
}

// dispatch picks the handler for the verb. Every answer about a deprecated
// version carries its deprecation warning, as kube-apiserver sends it.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, req request) {
	// Answers depend on Accept (negotiate): caches must key on it.
	w.Header().Add("Vary", "Accept")
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
// (get reads the whole object, update and patch write only its status),
// /{name}/scale of versions that declare it (see serveScale), and
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
	if req.subresource == resource.ScaleSubresource && req.target.Version.Subresources.Scale != nil {
		s.serveScale(w, r, req)
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
