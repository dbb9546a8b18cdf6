package resource

import "context"

// WriteAuthorizer is a Strategy that checks who may write what the
// object says, beyond the authorization of the request (RBAC's
// escalation check: a Role may not grant more than its writer holds).
type WriteAuthorizer interface {
	// AuthorizeWrite refuses w (valid by then), with w.Context()
	// carrying the user. Errors: Forbidden.
	AuthorizeWrite(w *Write) error
}

// The write pipeline: create, update, patch, /status, /finalize and delete
// run one ordered list of stages over a Write, as kube-apiserver's
// registry runs its REST hooks. A new stage (managedFields, CEL,
// admission) is one entry here, with the operations it runs for.

const writes = CreateOperation | UpdateOperation

// stage is one step of the pipeline. run returns an error to end the
// write; the error is the answer. reads are the facts run needs, writes
// the ones it makes: each fact a stage reads is an input of the operation
// or written by an earlier stage (TestStageOrder).
type stage struct {
	name          string
	ops           Operation
	run           func(s *Service, w *Write) error
	reads, writes fact
}

var stages = []stage{
	{"decode", writes, decodeBody, factBody, factDecoded},
	{"typeMeta", writes, typeMeta, factDecoded, 0},
	// a kind that refuses creates (its definition being deleted)
	{"createGuard", CreateOperation, guardCreate, factDecoded, 0},
	// mutating admission policies and webhooks, on the object as sent
	{"mutatingAdmission", writes, mutatingAdmission, factDecoded | factOld, factMutated},
	{"mutatingAdmission", DeleteOperation, mutatingAdmission, factOld | factDeleteOptions, factMutated},
	// validating admission of a delete, before anything is decided, as
	// kube's registry runs it
	{"validatingAdmission", DeleteOperation, validatingAdmission, factMutated, factAdmissionValidated},
	{"metadata", CreateOperation, createMeta, factMutated, factMeta},
	{"metadata", UpdateOperation, updateMeta, factMutated | factOld, factMeta},
	{"storable", writes, storable, factMutated, factStorable},
	{"preconditions", DeleteOperation, preconditions, factOld | factDeleteOptions, 0},
	{"propagation", DeleteOperation, propagation, factOld | factDeleteOptions, factPropagated},
	{"strategy", writes, prepare, factMeta | factStorable | factOld, factPrepared},
	{"strategy", DeleteOperation, prepareDelete, factPropagated, factPending},
	// prune, default, validate with ratcheting
	{"admit", writes, admitStage, factPrepared | factDecoded | factOld, factAdmitted},
	// CEL, list types, embedded resources
	{"validationRules", writes, validationRules, factAdmitted | factOld, factRuled},
	{"strategyValidation", writes, validateByStrategy, factAdmitted, factValidated},
	{"authorizeWrite", writes, authorizeByStrategy, factRuled | factValidated, factAuthorized},
	{"compare", UpdateOperation, compare, factAdmitted | factOld, factCompared},
	// decided here, joined to the object by the store
	{"managedFields", CreateOperation, managedFields, factAdmitted | factMeta, factManaged},
	{"managedFields", UpdateOperation, managedFields, factAdmitted | factMeta | factOld | factCompared, factManaged},
	{"generation", UpdateOperation, generation, factManaged | factCompared, factGeneration},
	// validating admission policies and webhooks, on the object as stored
	{"validatingAdmission", CreateOperation, validatingAdmission, factAuthorized | factManaged, factAdmissionValidated},
	{"validatingAdmission", UpdateOperation, validatingAdmission, factAuthorized | factGeneration, factAdmissionValidated},
}

// fact is something the stages of a write pass on: a field of Write, or
// a state of its object. Facts are bits, so that a row names the ones it
// reads and writes.
type fact uint32

// The facts of the pipeline. The inputs are set by the verb before the
// stages run; each other fact is written by one stage per operation.
// Which facts are inputs of each operation, and which the store reads
// after the stages, is written beside the check (stageorder_test.go).
const (
	// factBody (input): Object as sent, or as a patch or an apply made it
	// (patched, applied; an apply's managedFields.managed), and Options.
	factBody fact = 1 << iota
	// factOld (input): the stored object, loaded once: Old, OldMeta,
	// stored, oldHub, oldDefaulted, oldManaged (none on create; on delete
	// stored, and Object its body).
	factOld
	// factDeleteOptions (input): delete.
	factDeleteOptions
	// factDecoded: Object without duplicate keys, the body's decoding
	// problems reported (decode.strict, Warnings).
	factDecoded
	// factMeta: Meta parsed from Object, checked against the URL and the
	// stored object, the server's metadata filled; Name; metadata.
	factMeta
	// factStorable: Object's values are ones PostgreSQL can store.
	factStorable
	// factPropagated: the propagation policy's finalizer is on the object.
	factPropagated
	// factPrepared: the strategy's changes are in Object, and Meta (final)
	// is set into it.
	factPrepared
	// factPending: pending, the delete keeps the object, marked.
	factPending
	// factAdmitted: Object pruned, defaulted and valid against its schema.
	factAdmitted
	// factRuled: Object passes its schema's validation rules.
	factRuled
	// factValidated: Object passes the strategy's validation, its warnings
	// added.
	factValidated
	// factAuthorized: the writer may write what Object says.
	factAuthorized
	// factCompared: same, what an update leaves as it was.
	factCompared
	// factManaged: managedFields (the list stored, the shortcut's diff).
	factManaged
	// factGeneration: Object's metadata.generation, bumped when due.
	factGeneration
	// factMutated: Object as the mutating admission plug-ins made it.
	factMutated
	// factAdmissionValidated: the validating admission plug-ins let the
	// write pass, their warnings added.
	factAdmissionValidated
)

// run passes w through every stage of its operation, then stores it
// (unless dry run) and returns the answer.
func (s *Service) run(ctx context.Context, w *Write) (writeResult, error) {
	w.strategy = s.Strategy(w.Target.Resource.GroupResource())
	w.ctx = ctx
	for _, st := range stages {
		if st.ops&w.Operation == 0 {
			continue
		}
		if err := st.run(s, w); err != nil {
			return writeResult{}, err
		}
	}
	if err := s.store(ctx, w); err != nil {
		return writeResult{}, err
	}
	return w.result, nil
}
