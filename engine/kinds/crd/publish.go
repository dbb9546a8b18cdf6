package crd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// One CustomResourceDefinition per served kind, whatever its source: each
// kind a definition file serves has a stored definition too, so that
// `kubectl get crd` lists it and `kubectl wait --for=condition=Established`
// works for it, as the installers of operators expect. Stored, not
// synthesized in reads, so that lists and watches see it as any other
// object, with its own resourceVersions. It carries FileAnnotation and
// HashAnnotation; its status is written as for any definition a file
// serves (Established, DefinitionFile).
//
// Several processes share one database, and their files may differ (a
// rolling deploy: old processes hold a file's v1, new ones its v2; or one
// process has a file another lacks). So publishing follows each process's
// own files, never what it sees stored:
//
//   - A process publishes a kind (creates its definition, or overwrites
//     the stored one, re-reading on a conflict: the last writer wins) only
//     when its own snapshot of that kind changed: at start, and when a
//     reload of its files changed the kind's definition. It never writes
//     because the stored definition differs from its file, so processes
//     that disagree write once each, not for ever.
//   - It deletes a published definition only when a reload removed its
//     own file for that kind, and only while the stored one is still its
//     publication (the same file and hash): never because it lacks a file
//     another process has. That delete keeps the kind's objects (no
//     cleanup finalizer, see Strategy.PrepareForDelete), and the log says so.
//   - It writes the status of a published definition only while the stored
//     spec is its own publication (the same hash): the status is that of
//     the processes whose file the spec is.
//
// Through the API a published definition is the file's: see readonly.go.

// publisher is the field manager of the published definitions.
const publisher = "dynapi-definition-files"

// maxPublishAttempts bounds the re-reads of one publishing write after a
// conflict with another writer.
const maxPublishAttempts = 5

// errTerminating says a kind is not published yet: a definition of its
// name is being deleted (its objects cleaned up); publishing it then would
// hand the file's kind to that cleanup. The next reconcile tries again.
var errTerminating = errors.New("a definition of that name is being deleted; published once it is gone")

// publication is what the process last published for a kind its files
// serve.
type publication struct {
	res  *registry.Resource // the snapshot's resource it was built from
	file string
	hash string
}

// publish brings the published definitions in line with what changed in
// snap since the last publish: the kinds whose file definition changed
// are published, those whose file is gone unpublished. A failure is
// tried again at the next call.
func (c *Controller) publish(ctx context.Context, t resource.Target, snap *registry.Snapshot) error {
	if snap == c.publishedFrom {
		return nil // Reconcile runs after every event; most change no file
	}
	var errs []error
	kinds := map[string]*registry.Resource{}
	for _, r := range fileKinds(snap) {
		kinds[r.Plural+"."+r.Group] = r
	}
	atOnce(slices.Sorted(maps.Keys(kinds)), func(name string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		errs = append(errs, c.publishKind(ctx, t, name, kinds[name]))
	})
	for name, pub := range c.published {
		if kinds[name] == nil {
			errs = append(errs, c.unpublish(ctx, t, name, pub))
		}
	}
	err := errors.Join(errs...)
	if err == nil {
		c.publishedFrom = snap
	}
	return err
}

// publishKind publishes r's definition, unless what the process last
// published of it is the same. The caller holds c.mu, which the write
// lets go while it waits for the database (see atOnce).
func (c *Controller) publishKind(ctx context.Context, t resource.Target, name string, r *registry.Resource) error {
	last, ok := c.published[name]
	if ok && last.res == r {
		return nil // the registry keeps the Resource of an unchanged file
	}
	def, hash := fileDefinition(r)
	pub := publication{res: r, file: r.File, hash: hash}
	if !ok || last.file != pub.file || last.hash != pub.hash {
		if err := c.write(ctx, t, name, def, pub); err != nil {
			return fmt.Errorf("publish %s from %s: %w", name, r.File, err)
		}
	}
	if c.published == nil {
		c.published = map[string]publication{}
	}
	c.published[name] = pub
	return nil
}

// write creates definition name as def, or overwrites the stored one
// (spec and the two annotations; the rest, such as an installer's labels,
// stays), unless it is pub already.
func (c *Controller) write(ctx context.Context, t resource.Target, name string, def []byte, pub publication) error {
	obj, stored := c.objects[name] // at start, most are published already
	for attempt := 1; ; attempt++ {
		var res resource.Result
		var err error
		c.unlocked(func() { res, err = c.writeOver(ctx, t, obj, stored, def, pub) })
		if err == nil {
			if res.Object != nil {
				c.remember(res.Object) // its status is written at once; its event comes later
			}
			return nil
		}
		if !retried(err) || attempt == maxPublishAttempts {
			return err
		}
		c.unlocked(func() { obj, err = c.service.Get(ctx, t, name) })
		if stored = err == nil; err != nil && engine.ErrorCode(err) != engine.CodeNotFound {
			return err
		}
	}
}

// writeOver is one attempt of write over obj, the stored definition
// (stored is false when there is none).
func (c *Controller) writeOver(ctx context.Context, t resource.Target, obj []byte, stored bool, def []byte, pub publication) (resource.Result, error) {
	ctx, opts := publishing(ctx), resource.WriteOptions{FieldManager: publisher}
	switch {
	case !stored:
		body, err := c.withStatus(def, pub.res)
		if err != nil {
			return resource.Result{}, err
		}
		return c.service.Create(ctx, t, body, opts)
	case annotatedFile(obj) == pub.file && annotatedHash(obj) == pub.hash:
		return resource.Result{}, nil
	case gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists():
		return resource.Result{}, errTerminating
	}
	body, err := overwrite(obj, def, pub)
	if err != nil {
		return resource.Result{}, err
	}
	return c.service.Update(ctx, t, nameOf(obj), body, opts)
}

// withStatus returns the new definition def of the file resource r with
// the status the controller would write next (see ownwrite.go).
func (c *Controller) withStatus(def []byte, r *registry.Resource) ([]byte, error) {
	st, _ := c.fileStatus(&definition{obj: def}, r)
	out, err := sjson.SetRawBytes(def, "status", []byte(st.json()))
	if err != nil {
		return nil, fmt.Errorf("set status: %w", err)
	}
	return out, nil
}

// overwrite returns the stored definition obj with the spec and the
// annotations of def.
func overwrite(obj, def []byte, pub publication) ([]byte, error) {
	out, err := sjson.SetRawBytes(obj, "spec", []byte(gjson.GetBytes(def, "spec").Raw))
	for key, v := range map[string]string{FileAnnotation: pub.file, HashAnnotation: pub.hash} {
		if err == nil {
			out, err = sjson.SetBytes(out, "metadata.annotations."+gjson.Escape(key), v)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("overwrite %s: %w", nameOf(obj), err)
	}
	return out, nil
}

// retried says whether a publishing write that failed with err is tried
// again after a re-read: another process wrote first.
func retried(err error) bool {
	switch engine.ErrorCode(err) {
	case engine.CodeConflict, engine.CodeAlreadyExists, engine.CodeNotFound:
		return true
	}
	return false
}

// unpublish deletes definition name, whose file a reload removed, while it
// is still pub (else another process published it: it stays); the kind's
// objects stay stored (see Strategy.PrepareForDelete).
func (c *Controller) unpublish(ctx context.Context, t resource.Target, name string, pub publication) error {
	for attempt := 1; ; attempt++ {
		obj, err := c.service.Get(ctx, t, name)
		if engine.ErrorCode(err) == engine.CodeNotFound {
			break
		}
		if err != nil {
			return fmt.Errorf("unpublish %s: %w", name, err)
		}
		if annotatedFile(obj) != pub.file || annotatedHash(obj) != pub.hash {
			c.logger.Info("definition file removed; its CustomResourceDefinition, published since by another process, is kept",
				"name", name, "file", pub.file)
			break
		}
		meta := gjson.GetBytes(obj, "metadata")
		_, err = c.service.Delete(ctx, t, name, resource.DeleteOptions{
			PreconditionUID: meta.Get("uid").Str, PreconditionResourceVersion: meta.Get("resourceVersion").Str})
		if err == nil {
			c.logger.Info("definition file removed: its CustomResourceDefinition is deleted, its objects are kept",
				"name", name, "file", pub.file)
			break
		}
		if !retried(err) || attempt == maxPublishAttempts {
			return fmt.Errorf("unpublish %s: %w", name, err)
		}
	}
	delete(c.published, name)
	return nil
}

// ownsStatus reports whether the process writes the status of definition
// obj: one not published, or the process's own publication.
func (c *Controller) ownsStatus(obj []byte) bool {
	if annotatedFile(obj) == "" {
		return true
	}
	pub, ok := c.published[nameOf(obj)]
	return ok && annotatedHash(obj) == pub.hash && annotatedFile(obj) == pub.file
}
