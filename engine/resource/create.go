package resource

import (
	"context"
	"crypto/rand"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	m.UID = types.UID(newUID())
	m.CreationTimestamp = metav1.NewTime(s.Now().UTC().Truncate(1e9))
	m.Generation = 1
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.SelfLink = "" // no longer populated by Kubernetes: drop what a client sent
	return generated
}

// newUID returns a random (version 4) UUID.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
