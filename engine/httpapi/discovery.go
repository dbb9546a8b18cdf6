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
		Name               string   `json:"name"`
		SingularName       string   `json:"singularName"`
		Namespaced         bool     `json:"namespaced"`
		Group              string   `json:"group,omitempty"`
		Version            string   `json:"version,omitempty"`
		Kind               string   `json:"kind"`
		Verbs              []string `json:"verbs"`
		ShortNames         []string `json:"shortNames,omitempty"`
		Categories         []string `json:"categories,omitempty"`
		StorageVersionHash string   `json:"storageVersionHash,omitempty"`
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
// With an Accept that asks for it, the aggregated APIGroupDiscoveryList
// of the core group.
func (s *Server) handleCoreVersions(w http.ResponseWriter, r *http.Request) {
	if s.negotiatedAggregated(w, r, "api") {
		return
	}
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
// With an Accept that asks for it, the aggregated APIGroupDiscoveryList
// of the named groups.
func (s *Server) handleGroupList(w http.ResponseWriter, r *http.Request) {
	if s.negotiatedAggregated(w, r, "apis") {
		return
	}
	doc := apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []apiGroup{}}
	for _, g := range discoveryGroupsOf(s.snapshots.Load()) {
		if g.Name != "" {
			doc.Groups = append(doc.Groups, groupDoc(g))
		}
	}
	writeJSON(w, http.StatusOK, doc)
}

// handleGroup serves /apis/{group}.
func (s *Server) handleGroup(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "group")
	for _, g := range discoveryGroupsOf(s.snapshots.Load()) {
		if g.Name == name && name != "" {
			doc := groupDoc(g)
			doc.Kind, doc.APIVersion = "APIGroup", "v1"
			writeJSON(w, http.StatusOK, doc)
			return
		}
	}
	s.writeError(w, r, errNotFoundPath)
}

// negotiatedAggregated answers /api or /apis (root) when Accept asks for
// aggregated discovery or for nothing dynapi has, and says whether it did.
func (s *Server) negotiatedAggregated(w http.ResponseWriter, r *http.Request, root string) bool {
	version, err := negotiateDiscovery(r)
	switch {
	case err != nil:
		s.writeError(w, r, err)
	case version != "":
		s.serveAggregated(w, r, root, version)
	default:
		w.Header().Set("Vary", "Accept")
		return false
	}
	return true
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
	resources := s.discoveryResources(snap, group, version)
	if len(resources) == 0 {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	doc := apiResourceList{Kind: "APIResourceList", APIVersion: "v1",
		GroupVersion: engine.GroupVersionKind{Group: group, Version: version}.APIVersion(), Resources: []apiResource{}}
	for _, d := range resources {
		res := d.res
		doc.Resources = append(doc.Resources, apiResource{Name: res.Plural, SingularName: res.Singular, Namespaced: res.Namespaced,
			Kind: res.Kind, Verbs: d.verbs, ShortNames: res.ShortNames, Categories: res.Categories, StorageVersionHash: d.hash})
		for _, sub := range d.subresources {
			doc.Resources = append(doc.Resources, apiResource{Name: res.Plural + "/" + sub.name, Namespaced: res.Namespaced,
				Group: sub.kind.Group, Version: sub.kind.Version, Kind: sub.kind.Kind, Verbs: sub.verbs})
		}
	}
	writeJSON(w, http.StatusOK, doc)
}
