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
	"sync"
	"sync/atomic"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Docs are the OpenAPI documents of one snapshot. They are immutable; the
// v2 document is rendered on first use (see V2).
type Docs struct {
	root  []byte
	gvs   map[string]*part // by path, "apis/<group>/<version>"
	parts []*part          // in discovery order, the v2 document's order

	v2once sync.Once
	v2     V2
	v2err  error
}

// Doc is one group version's document.
type Doc struct {
	Body Body
	// Hash identifies Body; its URL is /openapi/v3/<path>?hash=<Hash>.
	Hash string
}

// part is what one group version contributes to the documents: its v3
// document, and its share of the v2 document. It depends on nothing but
// the group version's served resources, which are immutable, so a part is
// reused while they stay the same. Its v2 share is rendered apart, when a
// v2 document is first asked for (the server asks in the background, after
// the v3 documents), and in protobuf after that: few clients read
// /openapi/v2 any more, it is larger than the v3 document, and its
// protobuf costs several times its JSON.
type part struct {
	path      string // as Docs.gvs has it
	resources []*registry.Resource
	version   string
	deletes   DeletesCollections
	v3hash    string
	// v3 is the v3 document: as rendered, so that it is served at once,
	// then packed by Compact.
	v3 atomic.Pointer[Body]

	v2once sync.Once
	v2     v2Part // its proto is set by protoOnce, later
	v2err  error

	protoOnce sync.Once
	protoErr  error
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
// group versions it touched are rendered again, on every core. deletes
// must answer as it did for prev, and must not change its answers later.
func BuildFrom(prev *Docs, snap *registry.Snapshot, deletes DeletesCollections) (*Docs, error) {
	d := &Docs{gvs: map[string]*part{}}
	var todo []*part
	for _, g := range snap.Groups() {
		for _, v := range g.Versions {
			path := gvPath(g.Name, v)
			p := prev.reusable(path, snap.ServedResources(g.Name, v))
			if p == nil {
				p = &part{path: path, resources: snap.ServedResources(g.Name, v), version: v, deletes: deletes}
				todo = append(todo, p)
			}
			d.gvs[path] = p
			d.parts = append(d.parts, p)
		}
	}
	err := forEach(len(todo), func(i int) (err error) {
		p := todo[i]
		body, err := buildGroupVersion(p.resources, p.version, deletes)
		if err != nil {
			return fmt.Errorf("openapi for %s: %w", p.path, err)
		}
		p.v3hash = hashOf(body)
		p.v3.Store(&Body{raw: body})
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.root, err = rootOf(d.gvs)
	return d, err
}

// rootOf renders the document at /openapi/v3: where each group version's
// document is.
func rootOf(gvs map[string]*part) ([]byte, error) {
	type entry struct {
		URL string `json:"serverRelativeURL"`
	}
	root := make(map[string]entry, len(gvs))
	for path, p := range gvs {
		root[path] = entry{URL: "/openapi/v3/" + path + "?hash=" + p.v3hash}
	}
	return json.Marshal(map[string]any{"paths": root})
}

// reusable returns prev's part of a group version when it serves the same
// resources; nil when it must be rendered.
func (prev *Docs) reusable(path string, resources []*registry.Resource) *part {
	if prev == nil {
		return nil
	}
	if p, ok := prev.gvs[path]; ok && slices.Equal(p.resources, resources) {
		return p
	}
	return nil
}

// renderV2 renders the part's share of the v2 document in JSON, once.
// Not a copy of p.v2: its proto may be being written (see renderProto).
func (p *part) renderV2() error {
	p.v2once.Do(func() {
		if p.v2, p.v2err = buildV2Part(p.resources, p.version, p.deletes); p.v2err != nil {
			p.v2err = fmt.Errorf("openapi v2 for %s: %w", p.path, p.v2err)
		}
	})
	return p.v2err
}

// renderProto renders the part's share of the v2 document in protobuf,
// once, after its JSON.
func (p *part) renderProto() error {
	p.protoOnce.Do(func() {
		if p.protoErr = p.renderV2(); p.protoErr != nil {
			return
		}
		proto, err := buildV2Proto(p.v2.definitions, p.resources, p.version, p.deletes)
		if err != nil {
			p.protoErr = fmt.Errorf("openapi v2 protobuf for %s: %w", p.path, err)
			return
		}
		p.v2.proto = proto
	})
	return p.protoErr
}

// hashOf is the hash kube-apiserver puts in a document's URL and ETag.
func hashOf(body []byte) string {
	sum := sha512.Sum512(body)
	return strings.ToUpper(hex.EncodeToString(sum[:]))[:128]
}

// V2 is the document at /openapi/v2, its JSON rendered on the first
// call, from the group versions' shares that earlier documents rendered
// and the others, rendered on every core; later calls return it. Its
// protobuf is rendered apart (V2.Proto).
func (d *Docs) V2() (V2, error) {
	d.v2once.Do(func() {
		d.v2err = forEach(len(d.parts), func(i int) error { return d.parts[i].renderV2() })
		if d.v2err == nil {
			d.v2, d.v2err = newV2(d.parts)
		}
	})
	return d.v2, d.v2err
}

// Root is the document at /openapi/v3.
func (d *Docs) Root() []byte { return d.root }

// GroupVersion returns the document at /openapi/v3/<path>, where path is
// "api/v1" or "apis/<group>/<version>".
func (d *Docs) GroupVersion(path string) (Doc, bool) {
	p, ok := d.gvs[path]
	if !ok {
		return Doc{}, false
	}
	return Doc{Body: *p.v3.Load(), Hash: p.v3hash}, true
}

// Compact packs the v3 documents kept as rendered: at a thousand kinds
// they are 29 MB, and a twenty-fifth of that packed. Documents that a
// client reads while they are packed are served as they were.
func (d *Docs) Compact() {
	_ = forEach(len(d.parts), func(i int) error {
		p := d.parts[i]
		if b := p.v3.Load(); b.raw != nil {
			p.v3.CompareAndSwap(b, &Body{pieces: []packed{pack(b.raw)}})
		}
		return nil
	})
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
