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
// write; the error is the answer.
type stage struct {
	name string
	ops  Operation
	run  func(s *Service, w *Write) error
}

var stages = []stage{
	{"decode", writes, decodeBody},
	{"typeMeta", writes, typeMeta},
	{"metadata", CreateOperation, createMeta},
	{"metadata", UpdateOperation, updateMeta},
	{"storable", writes, storable},
	{"preconditions", DeleteOperation, preconditions},
	{"propagation", DeleteOperation, propagation},
	{"strategy", writes, prepare},
	{"strategy", DeleteOperation, prepareDelete},
	{"admit", writes, admitStage},                // prune, default, validate with ratcheting
	{"validationRules", writes, validationRules}, // CEL, list types, embedded resources
	{"strategyValidation", writes, validateByStrategy},
	{"authorizeWrite", writes, authorizeByStrategy},
	{"compare", UpdateOperation, compare},
	{"managedFields", writes, managedFields}, // decided here, joined to the object by the store
	{"generation", UpdateOperation, generation},
}

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
