package resource

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynapi/dynapi/engine/meta"
)

// Create stores a new object from body (JSON, in the target's version).
// Errors: BadRequest, Invalid, AlreadyExists, NotFound (namespace).
func (s *Service) Create(ctx context.Context, t Target, body []byte, opts WriteOptions) (Result, error) {
	w := &Write{Target: t, Operation: CreateOperation, Object: body, Options: opts}
	res, err := s.run(ctx, w)
	return Result{Object: res.object, Warnings: w.Warnings}, err
}

// prepareCreateMeta fills the metadata the server owns on create, and
// reports whether it generated the name.
func (s *Service) prepareCreateMeta(m *metav1.ObjectMeta) (generated bool) {
	if m.Name == "" && m.GenerateName != "" {
		m.Name, generated = s.GenerateName(m.GenerateName), true
	}
	m.UID = types.UID(meta.NewUID())
	m.CreationTimestamp = metav1.NewTime(s.Now().UTC().Truncate(1e9))
	m.Generation = 1
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.SelfLink = "" // no longer populated by Kubernetes: drop what a client sent
	return generated
}
