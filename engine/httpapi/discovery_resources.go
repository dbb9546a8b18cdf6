package httpapi

import (
	"crypto/sha256"
	"encoding/base64"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// discoveredResource is what discovery (the APIResourceList of a group
// version and the aggregated APIGroupDiscoveryList) says of one resource.
type discoveredResource struct {
	res          *registry.Resource
	version      string
	verbs        []string
	hash         string // storageVersionHash
	subresources []discoveredSubresource
}

// discoveredSubresource is one subresource of a discoveredResource. kind
// is what it answers with; its Group and Version are empty when they are
// the resource's (the APIResourceList leaves them out then).
type discoveredSubresource struct {
	name  string
	kind  engine.GroupVersionKind
	verbs []string
}

// discoveryResources lists what the snapshot serves in a group version,
// as discovery shows it.
func (s *Server) discoveryResources(snap *registry.Snapshot, group, version string) []discoveredResource {
	var out []discoveredResource
	for _, res := range snap.ServedResources(group, version) {
		strategy := s.service.Strategy(res.GroupResource())
		d := discoveredResource{res: res, version: version, verbs: resourceVerbs,
			hash: storageVersionHash(res.Group, res.StorageVersion, res.Kind)}
		if !strategy.DeletesCollections() {
			d.verbs = singleVerbs
		}
		for _, sub := range strategy.Subresources() {
			d.subresources = append(d.subresources, discoveredSubresource{name: sub, kind: engine.GroupVersionKind{Kind: res.Kind}, verbs: []string{"update"}})
		}
		v, _ := res.Version(version)
		if v.Subresources.Status {
			d.subresources = append(d.subresources, discoveredSubresource{name: "status", kind: engine.GroupVersionKind{Kind: res.Kind}, verbs: statusVerbs})
		}
		if v.Subresources.Scale != nil {
			d.subresources = append(d.subresources, discoveredSubresource{name: "scale",
				kind: scaleKind, verbs: statusVerbs})
		}
		out = append(out, d)
	}
	return append(out, reviewDiscovery(group, version)...)
}

// storageVersionHash is kube-apiserver's hash of the version objects are
// stored in (k8s.io/apiserver/pkg/endpoints/discovery.StorageVersionHash):
// the first 8 bytes of the SHA-256 of "group/version/kind", in base64.
// Clients compare it to learn that the storage version changed.
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
