package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Aggregated discovery (apidiscovery.k8s.io, KEP 3352): /api and /apis
// answer with every group, version and resource in one document when the
// client asks for an APIGroupDiscoveryList, so that kubectl and client-go
// learn the whole API in one request instead of one per group version.

// The APIGroupDiscoveryList document, as k8s.io/api/apidiscovery/v2 writes it.
type (
	apiGroupDiscoveryList struct {
		Kind       string              `json:"kind"`
		APIVersion string              `json:"apiVersion"`
		Metadata   struct{}            `json:"metadata"`
		Items      []apiGroupDiscovery `json:"items"`
	}
	apiGroupDiscovery struct {
		Metadata struct {
			Name string `json:"name,omitempty"`
		} `json:"metadata"`
		Versions []apiVersionDiscovery `json:"versions,omitempty"`
	}
	apiVersionDiscovery struct {
		Version   string                 `json:"version"`
		Resources []apiResourceDiscovery `json:"resources,omitempty"`
		Freshness string                 `json:"freshness,omitempty"`
	}
	apiResourceDiscovery struct {
		Resource         string                    `json:"resource"`
		ResponseKind     gvkDoc                    `json:"responseKind"`
		Scope            string                    `json:"scope"`
		SingularResource string                    `json:"singularResource"`
		Verbs            []string                  `json:"verbs"`
		ShortNames       []string                  `json:"shortNames,omitempty"`
		Categories       []string                  `json:"categories,omitempty"`
		Subresources     []apiSubresourceDiscovery `json:"subresources,omitempty"`
	}
	apiSubresourceDiscovery struct {
		Subresource  string   `json:"subresource"`
		ResponseKind gvkDoc   `json:"responseKind"`
		Verbs        []string `json:"verbs"`
	}
	gvkDoc struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
)

// aggregatedVersions are the versions of APIGroupDiscoveryList served:
// v2, and v2beta1 for clients older than Kubernetes 1.30.
var aggregatedVersions = []string{"v2", "v2beta1"}

// negotiateDiscovery reads Accept on /api and /apis: the version of
// APIGroupDiscoveryList to answer with, or "" for the unaggregated
// document. Media ranges are tried in order. Errors: NotAcceptable.
func negotiateDiscovery(r *http.Request) (string, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "", nil
	}
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		as := params["as"]
		switch {
		case as == "APIGroupDiscoveryList" && mediaType == "application/json" && params["g"] == "apidiscovery.k8s.io" &&
			(params["v"] == "v2" || params["v"] == "v2beta1"):
			return params["v"], nil
		case as == "" && (mediaType == "application/json" || mediaType == "application/*" || mediaType == "*/*"):
			return "", nil
		}
	}
	return "", engine.Errorf(engine.CodeNotAcceptable,
		"only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
}

// aggregatedCache holds the documents of the last snapshot they were
// built for: built once per snapshot, on first use.
type aggregatedCache struct {
	current atomic.Pointer[aggregatedDocs]
	mu      sync.Mutex // one build at a time
}

// aggregatedDocs are a snapshot's documents by "api/v2", "apis/v2beta1"...
type aggregatedDocs struct {
	snap *registry.Snapshot
	docs map[string]aggregatedDoc
}

type aggregatedDoc struct {
	body []byte
	etag string // quoted
}

// serveAggregated answers /api (core) or /apis with the APIGroupDiscoveryList
// of version, with an ETag, or 304 when If-None-Match has it.
func (s *Server) serveAggregated(w http.ResponseWriter, r *http.Request, root, version string) {
	doc := s.aggregatedDoc(s.snapshots.Load(), root+"/"+version)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("ETag", doc.etag)
	w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v="+version+";as=APIGroupDiscoveryList")
	if r.Header.Get("If-None-Match") == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc.body)
}

func (s *Server) aggregatedDoc(snap *registry.Snapshot, key string) aggregatedDoc {
	if b := s.aggregated.current.Load(); b != nil && b.snap == snap {
		return b.docs[key]
	}
	s.aggregated.mu.Lock()
	defer s.aggregated.mu.Unlock()
	if b := s.aggregated.current.Load(); b != nil && b.snap == snap {
		return b.docs[key]
	}
	b := &aggregatedDocs{snap: snap, docs: map[string]aggregatedDoc{}}
	for _, root := range []string{"api", "apis"} {
		items := s.discoveryGroups(snap, root == "api")
		for _, v := range aggregatedVersions {
			b.docs[root+"/"+v] = encodeAggregated(apiGroupDiscoveryList{Kind: "APIGroupDiscoveryList",
				APIVersion: "apidiscovery.k8s.io/" + v, Items: items})
		}
	}
	s.aggregated.current.Store(b)
	return b.docs[key]
}

func encodeAggregated(list apiGroupDiscoveryList) aggregatedDoc {
	body, err := json.Marshal(list)
	if err != nil {
		panic("encode APIGroupDiscoveryList: " + err.Error()) // strings, bools and slices always encode
	}
	sum := sha256.Sum256(body)
	return aggregatedDoc{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// discoveryGroups lists the core group (core) or the named groups, each
// version in priority order, as kube-apiserver does.
func (s *Server) discoveryGroups(snap *registry.Snapshot, core bool) []apiGroupDiscovery {
	items := []apiGroupDiscovery{}
	for _, g := range discoveryGroupsOf(snap) {
		if (g.Name == "") != core {
			continue
		}
		item := apiGroupDiscovery{}
		item.Metadata.Name = g.Name
		for _, v := range g.Versions {
			if resources := s.discoveryResources(snap, g.Name, v); len(resources) > 0 {
				item.Versions = append(item.Versions, versionDiscovery(v, resources))
			}
		}
		if len(item.Versions) > 0 {
			items = append(items, item)
		}
	}
	return items
}

func versionDiscovery(version string, resources []discoveredResource) apiVersionDiscovery {
	out := apiVersionDiscovery{Version: version, Freshness: "Current", Resources: []apiResourceDiscovery{}}
	for _, d := range resources {
		res := d.res
		kind := gvkDoc{Group: res.Group, Version: version, Kind: res.Kind}
		scope := "Cluster"
		if res.Namespaced {
			scope = "Namespaced"
		}
		rd := apiResourceDiscovery{Resource: res.Plural, ResponseKind: kind, Scope: scope, SingularResource: res.Singular,
			Verbs: d.verbs, ShortNames: res.ShortNames, Categories: res.Categories}
		for _, sub := range d.subresources {
			rk := kind
			if sub.kind.Version != "" {
				rk = gvkDoc{Group: sub.kind.Group, Version: sub.kind.Version, Kind: sub.kind.Kind}
			}
			rd.Subresources = append(rd.Subresources, apiSubresourceDiscovery{Subresource: sub.name, ResponseKind: rk, Verbs: sub.verbs})
		}
		out.Resources = append(out.Resources, rd)
	}
	return out
}
