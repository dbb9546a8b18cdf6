package crd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// names are a definition's names (spec.names, and status.acceptedNames),
// with Kubernetes' defaults for singular and listKind.
type names struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// readNames reads spec.names. A malformed one (refused by Check, so only
// in a definition stored before) reads as far as it goes.
func readNames(obj []byte) names {
	var n names
	_ = json.Unmarshal([]byte(gjson.GetBytes(obj, "spec.names").Raw), &n)
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	return n
}

// namesOf returns the names a resource is served under.
func namesOf(r *registry.Resource) names {
	return names{Plural: r.Plural, Singular: r.Singular, ShortNames: r.ShortNames,
		Kind: r.Kind, ListKind: r.ListKind, Categories: r.Categories}
}

// all lists every name kubectl resolves, as the registry compares them.
func (n names) all() []string {
	return append([]string{n.Plural, n.Singular, n.Kind, n.ListKind}, n.ShortNames...)
}

// holders maps the names held in one group, in lower case (kubectl
// matches kinds that way), to who holds them. Like the registry, it
// compares every name with every name of the others: kubectl must be able
// to tell resources apart whatever name it is given.
type holders map[string]string

// addFile adds the names of a resource served from a definition file, or
// of a review the server answers itself.
func (h holders) addFile(r *registry.Resource) {
	if r.File == registry.ReviewsFile {
		h.add(namesOf(r), fmt.Sprintf("%s (a review the server answers)", r.GroupResource()))
		return
	}
	h.add(namesOf(r), fmt.Sprintf("%s (definition file %s)", r.GroupResource(), r.File))
}

// addAll adds what other holds, which takes the names over.
func (h holders) addAll(other holders) {
	for name, holder := range other {
		h[name] = holder
	}
}

func (h holders) add(n names, holder string) {
	for _, name := range n.all() {
		if name != "" {
			h[strings.ToLower(name)] = holder
		}
	}
}

// conflict is a name of a definition that another one holds.
type conflict struct {
	field  string // as kube-apiserver names the conflict: Plural, Singular, ShortNames, Kind, ListKind
	value  string
	holder string
}

// reason is kube-apiserver's reason for the NamesAccepted condition.
func (c conflict) reason() string { return c.field + "Conflict" }

func (c conflict) String() string {
	return fmt.Sprintf("%q is already in use by %s", c.value, c.holder)
}

// conflicts lists the names of n that h holds, in the order kube-apiserver
// checks them.
func (h holders) conflicts(n names) []conflict {
	var found []conflict
	check := func(field, value string) {
		if holder, ok := h[strings.ToLower(value)]; ok && value != "" {
			found = append(found, conflict{field, value, holder})
		}
	}
	check("Plural", n.Plural)
	check("Singular", n.Singular)
	for _, s := range n.ShortNames {
		check("ShortNames", s)
	}
	check("Kind", n.Kind)
	check("ListKind", n.ListKind)
	return found
}

// accepted returns the names that no conflict is about, as kube-apiserver
// fills status.acceptedNames: short names are accepted all together or not
// at all, categories always.
func accepted(n names, found []conflict) names {
	for _, c := range found {
		switch c.field {
		case "Plural":
			n.Plural = ""
		case "Singular":
			n.Singular = ""
		case "ShortNames":
			n.ShortNames = nil
		case "Kind":
			n.Kind = ""
		case "ListKind":
			n.ListKind = ""
		}
	}
	return n
}
