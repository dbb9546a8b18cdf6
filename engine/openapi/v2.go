package openapi

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/gnostic-models/compiler"
	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/tidwall/gjson"
	"google.golang.org/protobuf/proto"

	"github.com/dynapi/dynapi/engine/registry"
)

// V2 is the Swagger 2.0 document of a snapshot, as kube-apiserver serves
// it at /openapi/v2: in JSON, and in the protobuf encoding kubectl asks
// for. It is written from its group versions' shares, never held whole:
// at 1,000 kinds the document is tens of megabytes in each encoding.
type V2 struct {
	parts []*part // rendered
	// Hash identifies the document, for its ETag.
	Hash string
}

// v2Part is one group version's share of the Swagger 2.0 document: its
// paths and definitions as JSON object members (no braces), and a
// protobuf Document holding just them, each packed. Parts assemble by
// concatenation: in protobuf, concatenated messages merge, and repeated
// fields (the paths, the definitions) append. The protobuf message is
// rendered apart, after the JSON (see part.renderProto): it costs several
// times as much, and few clients read it.
type v2Part struct {
	paths, definitions packed
	proto              packed
	hash               string // of the JSON, which the protobuf is rendered from
}

// v2Info is the document's header, the same in every part.
var v2Info = map[string]string{"title": "dynapi", "version": "v1"}

// buildV2Part renders in JSON one group version's share of the Swagger
// 2.0 document of every served kind. kubectl reads it for two things: the
// patch types a kind's PATCH consumes (apply sends a strategic merge
// patch only to a kind that consumes one), and the models it validates a
// file against on the client when the server cannot, as for a List file,
// whose items it checks one by one.
//
// Each kind's model is its version's structural schema as kube-apiserver
// converts it to Swagger 2.0 (see kindModelV2), so that kubectl, which
// cannot read in Swagger 2.0 all a structural schema says, reads nothing
// that makes it refuse a valid object.
func buildV2Part(resources []*registry.Resource, version string, deletes DeletesCollections) (v2Part, error) {
	definitions := map[string]any{}
	for _, r := range resources {
		v, _ := r.Version(version)
		model, err := kindModelV2(r, v)
		if err != nil {
			return v2Part{}, err
		}
		definitions[schemaName(r.Group, version, r.Kind)] = model
		definitions[schemaName(r.Group, version, r.ListKind)] = listModelV2(r, version)
	}
	items := v2Items(resources, version, deletes)
	paths := make(map[string]any, len(items))
	for path, item := range items {
		paths[path] = item.v2()
	}
	pathsJSON, err := members(paths)
	if err != nil {
		return v2Part{}, err
	}
	defsJSON, err := members(definitions)
	if err != nil {
		return v2Part{}, err
	}
	return v2Part{paths: pack(pathsJSON), definitions: pack(defsJSON),
		hash: shareHash(pathsJSON, defsJSON)}, nil
}

// shareHash identifies a share by its JSON: SHA-256, which most CPUs
// compute in hardware (the shares are 50 MB at a thousand kinds, and
// SHA-512 took a tenth of their rendering), without a copy.
func shareHash(paths, definitions []byte) string {
	h := sha256.New()
	h.Write(paths)
	h.Write([]byte{0})
	h.Write(definitions)
	return hex.EncodeToString(h.Sum(nil))
}

// v2Items are the path items of the resources in version, by path.
func v2Items(resources []*registry.Resource, version string, deletes DeletesCollections) map[string]pathItem {
	items := map[string]pathItem{}
	for _, r := range resources {
		v, _ := r.Version(version)
		maps.Copy(items, pathItems(r, v, deletes(r.GroupResource())))
	}
	return items
}

// buildV2Proto renders in protobuf the share whose JSON is rendered:
// the definitions from their JSON, the paths as gnostic's messages.
func buildV2Proto(definitions packed, resources []*registry.Resource, version string, deletes DeletesCollections) (packed, error) {
	var defs bytes.Buffer
	if err := (Body{pieces: []packed{definitions}}).Write(&defs); err != nil {
		return packed{}, err
	}
	pb, err := v2Proto(defs.Bytes(), v2PathsProto(v2Items(resources, version, deletes)))
	if err != nil {
		return packed{}, err
	}
	return pack(pb), nil
}

// v2Proto renders in protobuf a Swagger 2.0 document of the given
// definitions (JSON object members) and paths. Only the definitions go
// through gnostic's compiler: they are schemas, of any shape.
func v2Proto(definitions []byte, paths *openapiv2.Paths) ([]byte, error) {
	info, _ := json.Marshal(v2Info) // strings always encode
	body := slices.Concat([]byte(`{"definitions":{`), definitions, []byte(`},"info":`), info, []byte(`,"paths":{},"swagger":"2.0"}`))
	root := yamlNode(gjson.ParseBytes(body))
	doc, err := openapiv2.NewDocument(root, compiler.NewContextWithExtensions("$root", root, nil, nil))
	if err != nil {
		return nil, fmt.Errorf("openapi v2: %w", err)
	}
	doc.Paths = paths
	pb, err := proto.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi v2 protobuf: %w", err)
	}
	return pb, nil
}

// members renders an object's members without the braces around them.
func members(m map[string]any) ([]byte, error) {
	out, err := appendJSON(nil, m)
	if err != nil {
		return nil, err
	}
	return out[1 : len(out)-1], nil
}

// v2Header is the start of every v2 document: the metadata models every
// kind's model refers to, as JSON object members and in protobuf.
var v2Header = sync.OnceValues(func() (v2Head, error) {
	meta, err := members(metaModelsV2())
	if err != nil {
		return v2Head{}, err
	}
	pb, err := v2Proto(meta, &openapiv2.Paths{})
	if err != nil {
		return v2Head{}, err
	}
	info, _ := json.Marshal(v2Info) // strings always encode
	return v2Head{definitions: pack(meta), proto: pack(pb), open: pack([]byte(`{"definitions":{`)),
		comma: pack([]byte(",")), middle: pack(slices.Concat([]byte(`},"info":`), info, []byte(`,"paths":{`))),
		close: pack([]byte(`},"swagger":"2.0"}`))}, nil
})

// v2Head is what every v2 document holds besides its parts: the metadata
// models, and in JSON the text around the parts' members.
type v2Head struct {
	definitions, proto         packed
	open, comma, middle, close packed
}

// newV2 is the document of the parts, whose v2 shares are rendered.
func newV2(parts []*part) (V2, error) {
	if _, err := v2Header(); err != nil {
		return V2{}, err
	}
	h := sha512.New()
	for _, p := range parts {
		h.Write([]byte(p.v2.hash))
	}
	return V2{parts: parts, Hash: strings.ToUpper(hex.EncodeToString(h.Sum(nil)))}, nil
}

// JSON is the document in JSON: the header's and the parts' members
// joined into one object.
func (d V2) JSON() Body {
	head, _ := v2Header() // newV2 checked it
	pieces := []packed{head.open, head.definitions}
	for _, p := range d.parts {
		if p.v2.definitions.size > 0 {
			pieces = append(pieces, head.comma, p.v2.definitions)
		}
	}
	pieces = append(pieces, head.middle)
	first := true
	for _, p := range d.parts {
		if p.v2.paths.size == 0 {
			continue
		}
		if !first {
			pieces = append(pieces, head.comma)
		}
		pieces, first = append(pieces, p.v2.paths), false
	}
	return Body{pieces: append(pieces, head.close)}
}

// PrepareProto renders the parts' shares in protobuf that are not
// rendered yet, one at a time: for the background, where it leaves the
// other cores to the requests (Proto renders on every core).
func (d V2) PrepareProto() error {
	for _, p := range d.parts {
		if err := p.renderProto(); err != nil {
			return err
		}
	}
	return nil
}

// Proto is the document in protobuf: the header's and the parts'
// messages one after another, which a reader merges into one. The parts'
// messages not rendered yet are rendered first, on every core.
func (d V2) Proto() (Body, error) {
	if err := forEach(len(d.parts), func(i int) error { return d.parts[i].renderProto() }); err != nil {
		return Body{}, err
	}
	head, _ := v2Header() // newV2 checked it
	pieces := []packed{head.proto}
	for _, p := range d.parts {
		pieces = append(pieces, p.v2.proto)
	}
	return Body{pieces: pieces}, nil
}

// anyObject is a model of an object of any shape, of the given kind.
func anyObject(desc string, kind map[string]string) map[string]any {
	return map[string]any{"description": desc, "type": "object", "x-kubernetes-group-version-kind": []any{kind}}
}

// v2 renders the path item as a Swagger 2.0 path item.
func (p pathItem) v2() map[string]any {
	out := map[string]any{}
	if p.params != nil {
		out["parameters"] = v2Params(p.params)
	}
	for method, o := range p.ops {
		op := o.common()
		op["produces"] = jsonTypes
		op["schemes"] = []string{"https"}
		op["responses"] = map[string]any{"200": map[string]any{"description": "OK", "schema": v2Ref(o.resp)}}
		params := v2Params(o.query)
		if o.bodyTypes != nil {
			op["consumes"] = o.bodyTypes
			params = append(params, map[string]any{"name": "body", "in": "body", "required": true, "schema": o.bodyRef(v2Ref)})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		out[method] = op
	}
	return out
}

func v2Params(params []param) []any {
	out := make([]any, 0, len(params))
	for _, p := range params {
		m := map[string]any{"name": p.name, "in": p.in, "type": p.typ, "uniqueItems": true}
		if p.desc != "" {
			m["description"] = p.desc
		}
		if p.in == "path" {
			m["required"] = true
		}
		out = append(out, m)
	}
	return out
}

func v2Ref(name string) map[string]string {
	return map[string]string{"$ref": "#/definitions/" + name}
}
