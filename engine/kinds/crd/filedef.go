package crd

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// FileAnnotation names the definition file that serves the kind of a
// stored CustomResourceDefinition: it marks a published definition.
const FileAnnotation = "dynapi.dev/definition-file"

// HashAnnotation is the SHA-256 of the published spec, as the publishing
// process built it from its file: processes whose files agree publish the
// same hash, so a process tells its own publication from another's by it
// without comparing schemas.
const HashAnnotation = "dynapi.dev/definition-sha256"

// fileDefinition is the CustomResourceDefinition of r, as the file
// declares it, annotated with its file and the hash of its spec, which it
// returns too.
func fileDefinition(r *registry.Resource) (obj []byte, hash string) {
	d := derived(r)
	annotations := map[string]string{FileAnnotation: r.File, HashAnnotation: d.hash}
	if protectedGroup(r.Group) {
		// Definition files need no approval (they are the operator's own);
		// their CRD is let through kube's check as an unapproved one.
		annotations[approvalAnnotation] = "unapproved, published from the definition file " + r.File
	}
	obj, _ = json.Marshal(map[string]any{ // maps of plain values always marshal
		"apiVersion": GroupResource.Group + "/" + version, "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": r.Plural + "." + r.Group, "annotations": annotations},
		"spec":     json.RawMessage(d.spec),
	})
	return obj, d.hash
}

// fileSpec is the spec of r's CustomResourceDefinition. json.Marshal
// sorts map keys, so one file gives the same bytes in every process.
func fileSpec(r *registry.Resource) []byte {
	versions := make([]map[string]any, len(r.Versions))
	for i, v := range r.Versions {
		versions[i] = fileVersion(v)
	}
	names := map[string]any{"plural": r.Plural, "singular": r.Singular, "kind": r.Kind, "listKind": r.ListKind}
	if len(r.ShortNames) > 0 {
		names["shortNames"] = r.ShortNames
	}
	if len(r.Categories) > 0 {
		names["categories"] = r.Categories
	}
	out, _ := json.Marshal(map[string]any{"group": r.Group, "names": names, "scope": scope(r), "versions": versions})
	return out
}

// fileVersion is one version of a file's CustomResourceDefinition.
func fileVersion(v *registry.Version) map[string]any {
	out := map[string]any{"name": v.Name, "served": v.Served, "storage": v.Storage}
	if v.Deprecated {
		out["deprecated"] = true
	}
	if v.DeprecationWarning != "" {
		out["deprecationWarning"] = v.DeprecationWarning
	}
	if v.Schema != nil {
		out["schema"] = map[string]any{"openAPIV3Schema": json.RawMessage(v.Schema.RawShared())}
	}
	if len(v.PrinterColumns) > 0 {
		out["additionalPrinterColumns"] = v.PrinterColumns
	}
	sub := map[string]any{}
	if v.Subresources.Status {
		sub["status"] = map[string]any{}
	}
	if v.Subresources.Scale != nil {
		sub["scale"] = v.Subresources.Scale
	}
	if len(sub) > 0 {
		out["subresources"] = sub
	}
	if len(v.SelectableFields) > 0 {
		fields := make([]map[string]string, len(v.SelectableFields))
		for i, f := range v.SelectableFields {
			fields[i] = map[string]string{"jsonPath": f}
		}
		out["selectableFields"] = fields
	}
	return out
}

// fileKinds lists the kinds definition files serve in snap: not the
// built-in ones, nor those defined through the API.
func fileKinds(snap *registry.Snapshot) []*registry.Resource {
	var out []*registry.Resource
	for _, r := range snap.Resources() {
		if !registry.IsAPIFile(r.File) && !registry.IsBuiltinFile(r.File) {
			out = append(out, r)
		}
	}
	return out
}

// annotatedFile returns the FileAnnotation of definition obj: "" when it
// was not published.
func annotatedFile(obj []byte) string { return annotation(obj, FileAnnotation) }

// annotatedHash returns the HashAnnotation of definition obj.
func annotatedHash(obj []byte) string { return annotation(obj, HashAnnotation) }

func annotation(obj []byte, key string) string {
	return gjson.GetBytes(obj, "metadata.annotations."+gjson.Escape(key)).Str
}
