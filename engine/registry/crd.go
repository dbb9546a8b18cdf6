package registry

import (
	"encoding/json"
	"fmt"
	"strings"
)

// crd is an apiextensions.k8s.io/v1 CustomResourceDefinition, with the
// fields dynapi reads. metadata and status are taken as they come (status
// is what a cluster wrote back and means nothing here); spec is decoded
// strictly, like kubectl's default server-side field validation does.
type crd struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   json.RawMessage `json:"metadata"`
	Spec       crdSpec         `json:"spec"`
	Status     json.RawMessage `json:"status"`
}

type crdSpec struct {
	Group    string       `json:"group"`
	Names    crdNames     `json:"names"`
	Scope    string       `json:"scope"`
	Versions []crdVersion `json:"versions"`
	// Conversion names the conversion webhook, if any; rules in
	// conversions/ for the kind win over it.
	Conversion            json.RawMessage `json:"conversion"`
	PreserveUnknownFields *bool           `json:"preserveUnknownFields"`
}

type crdNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular"`
	ShortNames []string `json:"shortNames"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind"`
	Categories []string `json:"categories"`
}

type crdVersion struct {
	Name                     string            `json:"name"`
	Served                   bool              `json:"served"`
	Storage                  bool              `json:"storage"`
	Deprecated               bool              `json:"deprecated"`
	DeprecationWarning       *string           `json:"deprecationWarning"`
	Schema                   *crdSchema        `json:"schema"`
	Subresources             nativeSubres      `json:"subresources"`
	AdditionalPrinterColumns []PrinterColumn   `json:"additionalPrinterColumns"`
	SelectableFields         []selectableField `json:"selectableFields"`
}

type crdSchema struct {
	OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
}

// decodeCRD reads a CustomResourceDefinition and translates it to the
// native model. It returns a Problem when the document cannot be read, and
// the reasons to refuse it that only a CRD has.
func decodeCRD(d document) (*native, []string, *Problem) {
	var c crd
	if err := strictUnmarshal(d.json, &c); err != nil {
		p := decodeProblem(d, err)
		return nil, nil, &p
	}
	return c.native(), c.check(), nil
}

// check holds Kubernetes' rules for a CRD that the native format does not
// share: a CRD's group always has a dot (single names are reserved for
// Kubernetes' own groups), and its name is fixed by its plural and group.
func (c *crd) check() []string {
	var reasons []string
	s := c.Spec
	switch {
	case s.Group == "":
		reasons = append(reasons, "spec.group is required")
	case !strings.Contains(s.Group, "."):
		reasons = append(reasons, fmt.Sprintf("spec.group %q: should be a domain with at least one dot", s.Group))
	}
	var meta struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(c.Metadata, &meta) // a metadata that is no object leaves the name empty, reported below
	if want := s.Names.Plural + "." + s.Group; meta.Name != want {
		reasons = append(reasons, fmt.Sprintf(
			`metadata.name %q: must be spec.names.plural+"."+spec.group (%q)`, meta.Name, want))
	}
	if s.PreserveUnknownFields != nil && *s.PreserveUnknownFields {
		reasons = append(reasons, "spec.preserveUnknownFields: cannot be true, "+
			"set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")
	}
	return reasons
}

// native translates the CRD. served is explicit in a CRD (absent is false).
func (c *crd) native() *native {
	s := c.Spec
	n := &native{
		Group: s.Group, Kind: s.Names.Kind, ListKind: s.Names.ListKind,
		Plural: s.Names.Plural, Singular: s.Names.Singular,
		ShortNames: s.Names.ShortNames, Categories: s.Names.Categories,
		Scope: s.Scope,
	}
	var conversion crdConversion
	_ = json.Unmarshal(s.Conversion, &conversion) // absent or malformed: no strategy
	n.webhook = conversion.webhook(s.Names.Plural + "." + s.Group)
	for _, v := range s.Versions {
		nv := nativeVersion{
			Name: v.Name, Served: ptr(v.Served), Storage: v.Storage,
			Deprecated: v.Deprecated, DeprecationWarning: v.DeprecationWarning,
			PrinterColumns: v.AdditionalPrinterColumns, Subresources: v.Subresources,
			SelectableFields: v.SelectableFields,
		}
		if v.Schema != nil {
			nv.Schema = v.Schema.OpenAPIV3Schema
		}
		n.Versions = append(n.Versions, nv)
	}
	return n
}
