package reload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// SchemaCheck is what a new definition of a kind would do to the objects
// stored under it, as StoredObjects.Check finds it.
type SchemaCheck struct {
	Group    string `json:"group"`
	Resource string `json:"resource"`
	File     string `json:"file"` // the new definition's file
	// Versions are the versions checked: those registry.SchemaChanges lists.
	Versions []string `json:"versions"`
	Objects  int      `json:"objects"` // stored objects checked
	// Invalid counts the objects that would fail validation in one of
	// Versions; Pruned those that would lose fields (see StoredObjects.Check).
	Invalid  int             `json:"invalid"`
	Pruned   int             `json:"pruned"`
	Examples []SchemaExample `json:"examples,omitempty"`
	Checked  time.Time       `json:"checked"`
	// Refused says the change did not take effect: it breaks stored
	// objects and the schema change policy is refuse, so the previous
	// definition serves on.
	Refused bool `json:"refused"`
}

// SchemaExample is one stored object a schema change breaks, and how.
type SchemaExample struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	Problem   string `json:"problem"` // the first one found
}

// maxSchemaExamples bounds SchemaCheck.Examples: a few say what is wrong.
const maxSchemaExamples = 5

// Breaks reports whether some stored object would fail validation or lose fields.
func (c SchemaCheck) Breaks() bool { return c.Invalid+c.Pruned > 0 }

// String sums the check up in one line, for logs and problems:
// "2 of 10 stored objects would fail validation, 1 would lose fields by
// pruning; e.g. default/a (v1): spec.replicas: Invalid value: ...".
func (c SchemaCheck) String() string {
	s := fmt.Sprintf("%d of %d stored objects would fail validation, %d would lose fields by pruning", c.Invalid, c.Objects, c.Pruned)
	var eg []string
	for _, e := range c.Examples {
		eg = append(eg, e.String())
	}
	if len(eg) > 0 {
		s += "; e.g. " + strings.Join(eg, "; ")
	}
	return s
}

func (e SchemaExample) String() string {
	name := e.Name
	if e.Namespace != "" {
		name = e.Namespace + "/" + name
	}
	return fmt.Sprintf("%s (%s): %s", name, e.Version, e.Problem)
}

// Lister streams the stored objects of a resource; engine.Store is one.
type Lister interface {
	// List calls each for every object matching opts. Errors: those of
	// engine.Store.List.
	List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error)
}

// StoredObjects checks changed definitions against the objects Store
// holds: its Check is an Options.Preview.
type StoredObjects struct {
	Store Lister
	Now   func() time.Time // when a check ran; nil: time.Now
}

// Check checks every stored object of prev's resource, streamed from the
// Store, against next, a new definition of it, in the versions whose
// schemas or rules changed (registry.SchemaChanges): it counts the
// objects that would fail validation there once converted, pruned and
// defaulted, and those that would lose fields: fields the new hub version
// (the storage version of a kind without rules) cannot hold, which every
// read hides and the next write drops. An object stored in a version next
// no longer has counts as invalid. Errors: those of engine.Store.List.
func (s StoredObjects) Check(ctx context.Context, prev, next *registry.Resource) (SchemaCheck, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	c := SchemaCheck{Group: next.Group, Resource: next.Plural, File: next.File,
		Versions: registry.SchemaChanges(prev, next), Checked: now()}
	if len(c.Versions) == 0 {
		return c, nil
	}
	versions := checkedVersions(next, c.Versions)
	_, err := s.Store.List(ctx, engine.ListOptions{Resource: next.GroupResource()}, func(o engine.Object) error {
		if next.ConvertsByWebhook() && o.StoredVersion != next.StorageVersion {
			return nil // read only through its webhook, which a check does not call for every object
		}
		c.add(o, checkStored(next, versions, o))
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("check stored %s: %w", next.GroupResource(), err)
	}
	return c, nil
}

// checkedVersions are the versions of next the stored objects are checked
// in: those changed, or of a kind converted by its webhook, only its
// storage version (the others are the webhook's business).
func checkedVersions(next *registry.Resource, changed []string) []string {
	if !next.ConvertsByWebhook() {
		return changed
	}
	return slices.DeleteFunc(slices.Clone(changed), func(v string) bool { return v != next.StorageVersion })
}

// storedProblems are what checkStored finds wrong with one object: the
// first problem of each sort, "" for none.
type storedProblems struct {
	invalid, invalidVersion string
	pruned                  string
}

// add counts one checked object.
func (c *SchemaCheck) add(o engine.Object, p storedProblems) {
	c.Objects++
	example := SchemaExample{Namespace: o.Key.Namespace, Name: o.Key.Name}
	switch {
	case p.invalid != "":
		example.Version, example.Problem = p.invalidVersion, p.invalid
	case p.pruned != "":
		example.Version, example.Problem = o.StoredVersion, p.pruned
	default:
		return
	}
	if p.invalid != "" {
		c.Invalid++
	}
	if p.pruned != "" {
		c.Pruned++
	}
	if len(c.Examples) < maxSchemaExamples {
		c.Examples = append(c.Examples, example)
	}
}

// checkStored checks one stored object against next in versions.
func checkStored(next *registry.Resource, versions []string, o engine.Object) storedProblems {
	if _, ok := next.Version(o.StoredVersion); !ok {
		return storedProblems{invalidVersion: o.StoredVersion,
			invalid: fmt.Sprintf("stored in version %s, which the new definition does not have", o.StoredVersion)}
	}
	h, err := resource.StoredToHub(next, o)
	if err != nil {
		return storedProblems{invalidVersion: o.StoredVersion, invalid: "cannot be read: " + err.Error()}
	}
	var p storedProblems
	for _, name := range versions {
		v, _ := next.Version(name) // SchemaChanges lists versions of next with a schema
		if name == resource.Hub(next) {
			if _, removed := v.Schema.Prune(h); len(removed) > 0 {
				p.pruned = fmt.Sprintf("%s: would be dropped: the schema no longer has it", removed[0])
			}
		}
		if v.Served && p.invalid == "" {
			p.invalid, p.invalidVersion = invalidIn(next, h, v), name
		}
	}
	return p
}

// invalidIn returns the first validation problem of h, an object in the
// hub, once converted to v as a read would, and defaulted; "" when valid.
func invalidIn(r *registry.Resource, h []byte, v *registry.Version) string {
	obj, err := r.Conversion.Convert(h, resource.Hub(r), v.Name)
	if err == nil {
		obj, _ = v.Schema.Prune(obj)
		obj, err = v.Schema.Default(obj)
	}
	if err != nil {
		return "cannot be converted: " + err.Error()
	}
	if errs := v.Schema.Validate(obj); len(errs) > 0 {
		return errs[0].Path + ": " + errs[0].Message
	}
	return ""
}
