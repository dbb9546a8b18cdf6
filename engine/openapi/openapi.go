// Package openapi publishes the OpenAPI documents of a registry snapshot the
// way kube-apiserver does: at /openapi/v3, a root listing one document per
// group version, each found at a URL carrying its content hash so clients
// (kubectl explain, kubectl's field-validation check) can cache it forever;
// at /openapi/v2, one Swagger 2.0 document (see buildV2Part). Documents
// are built once per snapshot, from parts per group version that are
// rendered again only when the group version's resources change.
package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Docs are the OpenAPI documents of one snapshot. They are immutable.
type Docs struct {
	root []byte
	gvs  map[string]*part // by path, "apis/<group>/<version>"
	v2   V2
}

// Doc is one group version's document.
type Doc struct {
	Body []byte
	// Hash identifies Body; its URL is /openapi/v3/<path>?hash=<Hash>.
	Hash string
}

// part is what one group version contributes to the documents: its v3
// document, and its share of the v2 document. It depends on nothing but
// the group version's served resources, which are immutable, so a part is
// reused while they stay the same.
type part struct {
	resources []*registry.Resource
	v3        Doc
	v2        v2Part
}

// DeletesCollections reports whether a resource serves DELETE on its
// collection: its strategy's say (resource.Strategy.DeletesCollections).
type DeletesCollections func(engine.GroupResource) bool

// Build renders the documents of every served group version of snap.
func Build(snap *registry.Snapshot, deletes DeletesCollections) (*Docs, error) {
	return BuildFrom(nil, snap, deletes)
}

// BuildFrom is Build that reuses the parts of prev (nil: none) whose
// group version serves the very same resources: after a change, only the
// group versions it touched are rendered again. deletes must answer as it
// did for prev.
func BuildFrom(prev *Docs, snap *registry.Snapshot, deletes DeletesCollections) (*Docs, error) {
	d := &Docs{gvs: map[string]*part{}}
	type entry struct {
		URL string `json:"serverRelativeURL"`
	}
	root := map[string]entry{}
	var parts []*part
	for _, g := range snap.Groups() {
		for _, v := range g.Versions {
			path := gvPath(g.Name, v)
			p, err := prev.partFor(path, snap, g.Name, v, deletes)
			if err != nil {
				return nil, fmt.Errorf("openapi for %s/%s: %w", g.Name, v, err)
			}
			d.gvs[path] = p
			parts = append(parts, p)
			root[path] = entry{URL: "/openapi/v3/" + path + "?hash=" + p.v3.Hash}
		}
	}
	var err error
	if d.v2, err = assembleV2(parts); err != nil {
		return nil, err
	}
	d.root, err = json.Marshal(map[string]any{"paths": root})
	return d, err
}

// partFor returns prev's part of a group version when it serves the same
// resources, or renders it.
func (prev *Docs) partFor(path string, snap *registry.Snapshot, group, version string, deletes DeletesCollections) (*part, error) {
	resources := snap.ServedResources(group, version)
	if prev != nil {
		if p, ok := prev.gvs[path]; ok && slices.Equal(p.resources, resources) {
			return p, nil
		}
	}
	body, err := buildGroupVersion(snap, group, version, deletes)
	if err != nil {
		return nil, err
	}
	p := &part{resources: resources, v3: Doc{Body: body, Hash: hashOf(body)}}
	if p.v2, err = buildV2Part(resources, version, deletes); err != nil {
		return nil, err
	}
	return p, nil
}

// hashOf is the hash kube-apiserver puts in a document's URL and ETag.
func hashOf(body []byte) string {
	sum := sha512.Sum512(body)
	return strings.ToUpper(hex.EncodeToString(sum[:]))[:128]
}

// V2 is the document at /openapi/v2.
func (d *Docs) V2() V2 { return d.v2 }

// Root is the document at /openapi/v3.
func (d *Docs) Root() []byte { return d.root }

// GroupVersion returns the document at /openapi/v3/<path>, where path is
// "api/v1" or "apis/<group>/<version>".
func (d *Docs) GroupVersion(path string) (Doc, bool) {
	p, ok := d.gvs[path]
	if !ok {
		return Doc{}, false
	}
	return p.v3, true
}

func gvPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// schemaName is the components/schemas name kube-apiserver gives a kind:
// the group reversed, like a Java package (com.example.shop.v1.Widget).
func schemaName(group, version, kind string) string {
	if group == "" {
		return "io.k8s.api.core." + version + "." + kind
	}
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + version + "." + kind
}

func gvk(group, version, kind string) map[string]string {
	return map[string]string{"group": group, "version": version, "kind": kind}
}

// apiVersion is the group version as an apiVersion string.
func apiVersion(group, version string) string {
	return engine.GroupVersionKind{Group: group, Version: version}.APIVersion()
}
