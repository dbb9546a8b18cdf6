package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// One CustomResourceDefinition per served kind, whatever its source: each
// kind a definition file serves has a stored definition too, so that
// `kubectl get crd` lists it and `kubectl wait --for=condition=Established`
// works for it, as the installers of operators expect. The definitions
// controller publishes it (created from the file, or adopted when one was
// applied through the API), marked with FileAnnotation; its statuses are
// written as for any definition a file serves (Established,
// DefinitionFile). Stored, not synthesized in reads, so that lists and
// watches see it as any other object, with its own resourceVersions.
//
// Through the API it is the file's: its spec may not differ from the file
// (422, see files.go), its annotation may not change, and it may not be
// deleted (403: the file serves the kind; see refuseFileDelete). When the
// file is removed, the controller deletes it without deleting its objects.

// FileAnnotation names the definition file that serves the kind of a
// stored CustomResourceDefinition.
const FileAnnotation = "dynapi.dev/definition-file"

// publisher is the field manager of the published definitions.
const publisher = "dynapi-definition-files"

// publish creates or adopts the definition of every kind a definition file
// serves in snap, and deletes the published ones whose file is gone. One
// process at a time writes them (a Store lock); it takes the lock only
// when there is something to write.
func (c *Controller) publish(ctx context.Context, t resource.Target, snap *registry.Snapshot) error {
	var writes []func() error
	for _, r := range fileKinds(snap) {
		name := r.Plural + "." + r.Group
		if write := c.publishOne(ctx, t, r, name); write != nil {
			writes = append(writes, write)
		}
	}
	for name, obj := range c.objects {
		if file := annotatedFile(obj); file != "" && !gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() {
			if _, served := fileKind(snap, obj); !served {
				writes = append(writes, func() error { return c.unpublish(ctx, t, name, file) })
			}
		}
	}
	if len(writes) == 0 {
		return nil
	}
	release, ok, err := c.service.TryLock(ctx, "customresourcedefinitions/files")
	if err != nil || !ok {
		return err // another process publishes; its writes come back as events
	}
	defer release()
	var errs []error
	for _, write := range writes {
		errs = append(errs, write())
	}
	return errors.Join(errs...)
}

// publishOne returns the write that publishes r's definition, nil when
// the stored one is published already.
func (c *Controller) publishOne(ctx context.Context, t resource.Target, r *registry.Resource, name string) func() error {
	obj, stored := c.objects[name]
	if !stored {
		return func() error {
			res, err := c.service.Create(ctx, t, fileDefinition(r), resource.WriteOptions{FieldManager: publisher})
			return c.published(res, ignoreCode(err, engine.CodeAlreadyExists))
		}
	}
	if annotatedFile(obj) == r.File {
		return nil
	}
	// Applied through the API before it was published: the file's now.
	return func() error {
		body, err := sjson.SetBytes(obj, "metadata.annotations."+gjson.Escape(FileAnnotation), r.File)
		if err != nil {
			return fmt.Errorf("adopt %s: %w", name, err)
		}
		res, err := c.service.Update(ctx, t, name, body, resource.WriteOptions{FieldManager: publisher})
		return c.published(res, ignoreCode(err, engine.CodeConflict, engine.CodeNotFound))
	}
}

// published remembers the definition a publishing write stored, so that
// the reconcile that follows writes its status at once (its event comes
// later).
func (c *Controller) published(res resource.Result, err error) error {
	if err == nil && res.Object != nil {
		c.remember(res.Object)
	}
	return err
}

// unpublish deletes the published definition name, whose file is gone;
// the kind's objects stay stored (see Strategy.PrepareForDelete).
func (c *Controller) unpublish(ctx context.Context, t resource.Target, name, file string) error {
	_, err := c.service.Delete(ctx, t, name, resource.DeleteOptions{})
	if err = ignoreCode(err, engine.CodeNotFound); err == nil {
		c.logger.Info("definition file removed: its CustomResourceDefinition is deleted, its objects are kept",
			"name", name, "file", file)
	}
	return err
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

// annotatedFile returns the FileAnnotation of definition obj.
func annotatedFile(obj []byte) string {
	return gjson.GetBytes(obj, "metadata.annotations."+gjson.Escape(FileAnnotation)).Str
}

func ignoreCode(err error, codes ...engine.Code) error {
	for _, code := range codes {
		if engine.ErrorCode(err) == code {
			return nil
		}
	}
	return err
}

// fileDefinition is the CustomResourceDefinition of r, as the file
// declares it, annotated with its file.
func fileDefinition(r *registry.Resource) []byte {
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
	out, _ := json.Marshal(map[string]any{ // maps of plain values always marshal
		"apiVersion": GroupResource.Group + "/" + version, "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": r.Plural + "." + r.Group, "annotations": map[string]string{FileAnnotation: r.File}},
		"spec":     map[string]any{"group": r.Group, "names": names, "scope": scope(r), "versions": versions},
	})
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

// refuseFileDelete refuses the delete of a definition for a kind a
// definition file serves: the file serves it, so only removing the file
// removes it. Kube's words for an object the server keeps whatever the
// user's rights (its namespaces "default" and "kube-system"): 403.
func refuseFileDelete(snap *registry.Snapshot, name string, obj []byte) error {
	r, ok := fileKind(snap, obj)
	if !ok {
		return nil
	}
	return &engine.Error{Code: engine.CodeForbidden, Group: GroupResource.Group, Kind: GroupResource.Resource, Name: name,
		Message: fmt.Sprintf("%s %q is forbidden: the definition file %s serves %s: remove the file to remove the definition (its objects are kept)",
			GroupResource, name, r.File, r.GroupResource())}
}

// checkFileAnnotation refuses a FileAnnotation the server did not set:
// while a file serves the kind, it names that file (or is absent from a
// definition never published); once the file is gone, it stays as it was.
func checkFileAnnotation(snap *registry.Snapshot, obj, old []byte) []engine.FieldError {
	got, was := annotatedFile(obj), annotatedFile(old)
	want := was
	if r, ok := fileKind(snap, obj); ok && (got != "" || was != "") {
		want = r.File
	}
	if got == want || got == "" && was == "" {
		return nil
	}
	return []engine.FieldError{{Type: engine.CauseInvalid, Path: "metadata.annotations[" + FileAnnotation + "]",
		Message: fmt.Sprintf("Invalid value: %q: set by the server: it must be %q", got, want)}}
}
