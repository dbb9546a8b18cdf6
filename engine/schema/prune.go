package schema

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// Prune removes the fields the schema does not know, as kube-apiserver
// prunes custom resources: a field not in properties is dropped unless its
// object has additionalProperties or x-kubernetes-preserve-unknown-fields,
// recursively through arrays and maps. apiVersion, kind and metadata are kept
// whole at the root (another package owns the object's metadata) and in
// x-kubernetes-embedded-resource objects, whose metadata loses the members
// ObjectMeta does not have, as kube-apiserver coerces it. removed lists the
// dropped fields in Kubernetes path form ("spec.items[2].bar") as
// kube-apiserver reports them for "unknown field" warnings: sorted, then
// those of embedded metadata. obj must be valid JSON; when nothing is
// dropped, obj itself is returned.
func (s *Schema) Prune(obj []byte) (pruned []byte, removed []string) {
	return prune(obj, s.root)
}

// prune is Prune for any structural node, used for defaults too.
func prune(obj []byte, n *node) ([]byte, []string) {
	var pathBuf [16]pathElem // deep enough for most objects, without allocating
	p := pruner{path: pathBuf[:0]}
	if out := p.value(gjson.Parse(jsonscan.View(obj)), n, false); out != nil { // read in place: the answer is built anew
		slices.Sort(p.removed)
		return out, append(p.removed, p.embeddedMeta...)
	}
	return obj, nil
}

// pruner walks a document and its structural schema together.
type pruner struct {
	path         fieldPath
	removed      []string
	embeddedMeta []string // dropped from embedded resources' metadata
}

// value returns the pruned form of v, or nil when v needs no change.
// preserve means unknown fields are kept: the node or, through arrays, an
// ancestor has x-kubernetes-preserve-unknown-fields.
func (p *pruner) value(v gjson.Result, n *node, preserve bool) []byte {
	if n != nil && n.preserve {
		preserve = true
	}
	if n == nil && preserve {
		return nil
	}
	switch {
	case v.IsObject():
		return p.object(v, n, preserve)
	case v.IsArray():
		return p.array(v, n, preserve)
	}
	return nil
}

func (p *pruner) object(v gjson.Result, n *node, preserve bool) []byte {
	var changes []change
	i := 0
	v.ForEach(func(k, x gjson.Result) bool {
		if c, ok := p.member(k.Str, x, i, n, preserve); ok {
			changes = append(changes, c)
		}
		i++
		return true
	})
	if changes == nil {
		return nil
	}
	return rebuild(v, changes, nil)
}

// member prunes the i-th member of an object and reports its change, if any.
func (p *pruner) member(key string, x gjson.Result, i int, n *node, preserve bool) (change, bool) {
	if n != nil && n.embedded && metaFields[key] {
		if key != "metadata" || len(p.path) == 0 {
			return change{}, false
		}
		raw := p.embeddedMetadata(x)
		return change{index: i, raw: raw}, raw != nil
	}
	c := n.child(key)
	if c == nil && preserve {
		return change{}, false
	}
	p.path = append(p.path, pathElem{key: key, index: -1})
	defer func() { p.path = p.path[:len(p.path)-1] }()
	if c == nil {
		p.removed = append(p.removed, p.path.String())
		return change{index: i, drop: true}, true
	}
	raw := p.value(x, c, false)
	return change{index: i, raw: raw}, raw != nil
}

func (p *pruner) array(v gjson.Result, n *node, preserve bool) []byte {
	var changes []change
	items := n.itemNode()
	i := 0
	v.ForEach(func(_, x gjson.Result) bool {
		p.path = append(p.path, pathElem{index: i})
		if raw := p.value(x, items, preserve); raw != nil {
			changes = append(changes, change{index: i, raw: raw})
		}
		p.path = p.path[:len(p.path)-1]
		i++
		return true
	})
	if changes == nil {
		return nil
	}
	return rebuild(v, changes, nil)
}

// ObjectMetaFields are the members of ObjectMeta.
var ObjectMetaFields = []string{
	"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers", "managedFields",
}

// embeddedMetadata drops the members of an embedded resource's metadata
// that ObjectMeta does not have.
func (p *pruner) embeddedMetadata(m gjson.Result) []byte {
	var changes []change
	j := 0
	m.ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(ObjectMetaFields, k.Str) {
			p.embeddedMeta = append(p.embeddedMeta, p.path.String()+".metadata."+k.Str)
			changes = append(changes, change{index: j, drop: true})
		}
		j++
		return true
	})
	if changes == nil {
		return nil
	}
	return rebuild(m, changes, nil)
}
