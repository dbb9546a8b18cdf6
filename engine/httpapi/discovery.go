package httpapi

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// The discovery documents, as k8s.io/apimachinery/pkg/apis/meta/v1 writes them.
type (
	apiVersions struct {
		Kind     string         `json:"kind"`
		Versions []string       `json:"versions"`
		Servers  []serverByCIDR `json:"serverAddressByClientCIDRs"`
	}
	serverByCIDR struct {
		ClientCIDR    string `json:"clientCIDR"`
		ServerAddress string `json:"serverAddress"`
	}
	apiGroupList struct {
		Kind       string     `json:"kind"`
		APIVersion string     `json:"apiVersion"`
		Groups     []apiGroup `json:"groups"`
	}
	apiGroup struct {
		Kind             string         `json:"kind,omitempty"`
		APIVersion       string         `json:"apiVersion,omitempty"`
		Name             string         `json:"name"`
		Versions         []groupVersion `json:"versions"`
		PreferredVersion groupVersion   `json:"preferredVersion"`
	}
	groupVersion struct {
		GroupVersion string `json:"groupVersion"`
		Version      string `json:"version"`
	}
	apiResourceList struct {
		Kind         string        `json:"kind"`
		APIVersion   string        `json:"apiVersion"`
		GroupVersion string        `json:"groupVersion"`
		Resources    []apiResource `json:"resources"`
	}
	apiResource struct {
		Name         string   `json:"name"`
		SingularName string   `json:"singularName"`
		Namespaced   bool     `json:"namespaced"`
		Kind         string   `json:"kind"`
		Verbs        []string `json:"verbs"`
		ShortNames   []string `json:"shortNames,omitempty"`
		Categories   []string `json:"categories,omitempty"`
	}
)

// resourceVerbs are the verbs of a resource that deletes collections, and
// singleVerbs those of one that does not.
var (
	resourceVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	singleVerbs   = slices.DeleteFunc(slices.Clone(resourceVerbs), func(v string) bool { return v == "deletecollection" })
)

// statusVerbs are the verbs of a status subresource.
var statusVerbs = []string{"get", "patch", "update"}

// handleCoreVersions serves /api: the versions of the core group.
func (s *Server) handleCoreVersions(w http.ResponseWriter, r *http.Request) {
	doc := apiVersions{Kind: "APIVersions", Versions: []string{},
		Servers: []serverByCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}}
	for _, g := range s.snapshots.Load().Groups() {
		if g.Name == "" {
			doc.Versions = g.Versions
		}
	}
	writeJSON(w, http.StatusOK, doc)
}

// handleGroupList serves /apis: every named group.
func (s *Server) handleGroupList(w http.ResponseWriter, r *http.Request) {
	doc := apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []apiGroup{}}
	for _, g := range s.snapshots.Load().Groups() {
		if g.Name != "" {
			doc.Groups = append(doc.Groups, groupDoc(g))
		}
	}
	writeJSON(w, http.StatusOK, doc)
}

// handleGroup serves /apis/{group}.
func (s *Server) handleGroup(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "group")
	for _, g := range s.snapshots.Load().Groups() {
		if g.Name == name && name != "" {
			doc := groupDoc(g)
			doc.Kind, doc.APIVersion = "APIGroup", "v1"
			writeJSON(w, http.StatusOK, doc)
			return
		}
	}
	s.writeError(w, r, errNotFoundPath)
}

func groupDoc(g registry.Group) apiGroup {
	doc := apiGroup{Name: g.Name}
	for _, v := range g.Versions {
		doc.Versions = append(doc.Versions, groupVersionDoc(g.Name, v))
	}
	doc.PreferredVersion = groupVersionDoc(g.Name, g.PreferredVersion)
	return doc
}

func groupVersionDoc(group, version string) groupVersion {
	return groupVersion{GroupVersion: engine.GroupVersionKind{Group: group, Version: version}.APIVersion(), Version: version}
}

// writeResourceList serves /api/v1 and /apis/{group}/{version}. Errors: NotFound
// when the snapshot serves nothing in that group version.
func (s *Server) writeResourceList(w http.ResponseWriter, r *http.Request, snap *registry.Snapshot, group, version string) {
	resources := snap.ServedResources(group, version)
	if len(resources) == 0 {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	doc := apiResourceList{Kind: "APIResourceList", APIVersion: "v1",
		GroupVersion: engine.GroupVersionKind{Group: group, Version: version}.APIVersion(), Resources: []apiResource{}}
	for _, res := range resources {
		strategy := s.service.Strategy(res.GroupResource())
		verbs := resourceVerbs
		if !strategy.DeletesCollections() {
			verbs = singleVerbs
		}
		doc.Resources = append(doc.Resources, apiResource{Name: res.Plural, SingularName: res.Singular, Namespaced: res.Namespaced,
			Kind: res.Kind, Verbs: verbs, ShortNames: res.ShortNames, Categories: res.Categories})
		for _, sub := range strategy.Subresources() {
			doc.Resources = append(doc.Resources, apiResource{Name: res.Plural + "/" + sub, Namespaced: res.Namespaced,
				Kind: res.Kind, Verbs: []string{"update"}})
		}
		if v, _ := res.Version(version); v.Subresources.Status {
			doc.Resources = append(doc.Resources, apiResource{Name: res.Plural + "/status", Namespaced: res.Namespaced,
				Kind: res.Kind, Verbs: statusVerbs})
		}
	}
	writeJSON(w, http.StatusOK, doc)
}
