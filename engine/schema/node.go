package schema

import (
	"maps"
	"slices"

	"github.com/tidwall/gjson"
)

// node is one level of the structural schema: the part of a schema that
// pruning and defaulting walk. Subschemas of allOf/anyOf/oneOf/not only
// validate, as in Kubernetes structural schemas, so they have no node.
type node struct {
	props      map[string]*node
	items      *node
	additional *node // additionalProperties: a schema, or a keep-all node for true

	// def is the default, already pruned and defaulted deeper, so inserting
	// it needs no further walk; nil when the schema has none.
	def []byte
	// defaulted holds the properties that have a default, sorted by name,
	// as ready-to-insert `"name":default` object members; slot is this
	// node's 1-based position in its parent's defaulted list (0: none).
	defaulted [][]byte
	slot      int
	// needed counts the properties whose member a walk with no nulls to
	// replace must visit (a default of their own, or one below); when
	// additionalProperties needs no visit, the walk leaves an object once
	// it has seen them all.
	needed int
	// defaults is true when some property in this subtree has a default; a
	// walk with no nulls to replace skips subtrees where it is false.
	defaults bool

	// The booleans together, after the words: the node is 96 bytes
	// instead of 112, and a schema has dozens of nodes.
	preserve bool // x-kubernetes-preserve-unknown-fields: true
	embedded bool // x-kubernetes-embedded-resource: true, and the root
	nullable bool
}

// metaFields are kept whole at the root and in embedded resources: another
// package owns apiVersion, kind and metadata.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// child returns the schema of an object member: its property, or
// additionalProperties; nil when the schema says nothing about it.
func (n *node) child(key string) *node {
	if n == nil {
		return nil
	}
	if c, ok := n.props[key]; ok {
		return c
	}
	return n.additional
}

// itemNode returns the schema of array items, nil when there is none.
func (n *node) itemNode() *node {
	if n == nil {
		return nil
	}
	return n.items
}

// finalize derives defaulted, slot and defaults from the defaults set below
// n, and reports whether any exists. It runs during Compile only.
func (n *node) finalize() bool {
	if n == nil {
		return false
	}
	n.defaulted = n.defaulted[:0]
	n.needed = 0
	below := false
	// Sorted: defaulted is in name order. Why not kept sorted: only
	// Compile needs the order, and the names were kilobytes per schema.
	for _, name := range slices.Sorted(maps.Keys(n.props)) {
		c := n.props[name]
		c.slot = 0
		if c.def != nil {
			raw := gjson.AppendJSONString(nil, name)
			raw = append(append(raw, ':'), c.def...)
			n.defaulted = append(n.defaulted, raw)
			c.slot = len(n.defaulted)
		}
		if c.finalize() {
			below = true
		}
		if c.def != nil || c.defaults {
			n.needed++
		}
	}
	// A default of the items or of additionalProperties replaces a null
	// found there, so those need a visit too.
	if n.items.finalize() || n.items != nil && n.items.def != nil {
		below = true
	}
	if n.additional.finalize() || n.additional != nil && n.additional.def != nil {
		n.needed = -1 // any member may need a visit
		below = true
	}
	n.defaults = len(n.defaulted) > 0 || below
	return n.defaults
}
