package resource

import "context"

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
	{"preconditions", DeleteOperation, preconditions},
	{"propagation", DeleteOperation, propagation},
	{"strategy", writes, prepare},
	{"strategy", DeleteOperation, prepareDelete},
	{"admit", writes, admitStage}, // prune, default, validate with ratcheting
	{"managedFields", writes, managedFields},
	{"strategyValidation", writes, validateByStrategy},
	{"generation", UpdateOperation, generation},
}

// run passes w through every stage of its operation, then stores it
// (unless dry run) and returns the answer.
func (s *Service) run(ctx context.Context, w *Write) (writeResult, error) {
	w.strategy = s.Strategy(w.Target.Resource.GroupResource())
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
