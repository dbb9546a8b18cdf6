package crd

import (
	"cmp"

	"github.com/tidwall/gjson"
)

// Between definitions created through the API, the one created first
// holds a name: a later one that claims it is not handed to the registry.
// The registry would settle the conflict itself, but by the order it saw
// them in, which differs between a process that followed the definitions
// as they came and one that started later and listed them all at once.
// Creation order is the same for every process, so all serve the same.

// createdBefore reports whether definition a was created before b:
// creationTimestamp first, then name, as two definitions may be created in
// one second.
func createdBefore(a, b []byte) bool {
	return cmp.Or(
		cmp.Compare(gjson.GetBytes(a, "metadata.creationTimestamp").Str, gjson.GetBytes(b, "metadata.creationTimestamp").Str),
		cmp.Compare(nameOf(a), nameOf(b))) < 0
}

// heldBefore returns the names of obj's group held by the definitions
// created before obj.
func (c *Controller) heldBefore(obj []byte) holders {
	group := gjson.GetBytes(obj, "spec.group").Str
	h := holders{}
	for name, other := range c.objects {
		if gjson.GetBytes(other, "spec.group").Str == group && createdBefore(other, obj) {
			h.add(readNames(other), "CustomResourceDefinition "+name)
		}
	}
	return h
}

// servable returns the definitions to hand to the registry: those that
// claim no name a definition created before them holds.
func (c *Controller) servable() map[string][]byte {
	defs := make(map[string][]byte, len(c.objects))
	for name, obj := range c.objects {
		if len(c.heldBefore(obj).conflicts(readNames(obj))) == 0 {
			defs[name] = obj
		}
	}
	return defs
}
