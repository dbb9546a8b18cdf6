package resource

import (
	"context"
	"fmt"

	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/schema"
)

// Operation is what a write does to an object. Operations are bits, so that
// a stage can name the ones it runs for.
type Operation uint8

// The operations of the write pipeline. An update is also what a patch, a
// /status or a /finalize write does.
const (
	CreateOperation Operation = 1 << iota
	UpdateOperation
	DeleteOperation
)

// MaxCauses bounds the field errors one 422 reports: a body with a
// million wrong items costs a bounded answer, not a million causes.
const MaxCauses = schema.MaxCauses

// Write is one write as it passes through the pipeline's stages.
type Write struct {
	Target    Target
	Operation Operation
	Name      string
	// Object is the object being written, in the target's version; Meta is
	// its metadata, set into Object once the strategy has prepared it. On
	// delete, Object is the stored body, in its storage version.
	Object []byte
	Meta   *metav1.ObjectMeta
	// Old is the stored object in the target's version (nil on create),
	// without its managedFields (see the managedFields stage), OldMeta its
	// metadata.
	Old     []byte
	OldMeta *metav1.ObjectMeta
	Options WriteOptions
	// Warnings are sent with a write that succeeds.
	Warnings []string

	// The operation's inputs, set by the verb before the stages run (the
	// facts input in pipeline.go): the strategy and the request's context
	// (who writes) by run; the stored object by the verb that loaded it.
	strategy Strategy
	ctx      context.Context
	stored   engine.Object // the row Old was read from (on delete: Object's)
	// cached says stored is the cache's entry, possibly not the latest:
	// the store's write is conditioned on its resourceVersion, and a
	// write that would store nothing must look again (errUnverified).
	cached bool
	oldHub []byte // Old in the hub version: what toStorage needs of it
	// oldDefaulted says Old has defaults the stored row lacks: an update
	// that changes nothing else still writes them, as kube-apiserver's
	// comparison with the stored bytes does.
	oldDefaulted bool
	// oldManaged is the stored metadata.managedFields, cut off Old (nil:
	// none).
	oldManaged []byte
	patched    bool // Object comes from a patch: decoded already
	// applied says Object is the merge of an apply patch, and
	// managedFields.managed the list the apply computed.
	applied bool
	delete  DeleteOptions

	// What a stage writes for the stages after it and the store, one
	// block per owning stage (see each row's reads and writes in
	// pipeline.go).
	decode   decodeFacts
	metadata metadataFacts
	// pending is the delete strategy's: the object stays, marked, while
	// finalizers remain.
	pending       bool
	same          sameness // compare's: what the update leaves as it was
	managedFields managedFieldsFacts
	result        writeResult // the store's
}

// decodeFacts are the decode stage's (and the prune of admit, which ends
// the body's decoding).
type decodeFacts struct {
	// strict are the decoding problems a Strict write is refused for.
	strict []string
}

// metadataFacts are the metadata stage's.
type metadataFacts struct {
	// sentFields is metadata.managedFields as the client sent it (nil when
	// absent): an empty list clears them.
	sentFields []byte
	// generatedName: the server made Name from generateName, and the store
	// may make another when it is taken.
	generatedName bool
}

// managedFieldsFacts are the managedFields stage's.
type managedFieldsFacts struct {
	// managed is the metadata.managedFields the write stores, joined to
	// Object by the store (an apply computed it already).
	managed []byte
	// diff is what the shortcut's walk of Old and Object found, when it
	// walked them (see apply.Diff).
	diff apply.Diff
}

// writeResult is what the store stage answers.
type writeResult struct {
	object  []byte // in the target's version
	pending bool
}

// Context is the context of the request the write serves, which carries
// the user who writes (engine.UserFrom).
func (w *Write) Context() context.Context {
	if w.ctx == nil {
		return context.Background()
	}
	return w.ctx
}

// Drop removes field (a gjson path) from w.Object.
func (w *Write) Drop(field string) error {
	out, err := sjson.DeleteBytes(w.Object, field)
	if err != nil {
		return fmt.Errorf("drop %s: %w", field, err)
	}
	w.Object = out
	return nil
}

// Keep sets field (a gjson path) of w.Object to its stored value, or
// removes it when the stored object has none.
func (w *Write) Keep(field string) error {
	out, err := copyField(w.Object, w.Old, field)
	if err != nil {
		return err
	}
	w.Object = out
	return nil
}

func (w *Write) invalid(causes []engine.FieldError) error {
	t := w.Target
	return engine.NewInvalid(t.Resource.Group, t.Resource.Kind, w.Name, causes)
}
