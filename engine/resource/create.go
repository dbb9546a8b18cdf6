package resource

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
)

// Create stores a new object from body (JSON, in the target's version).
// Errors: BadRequest, Invalid, AlreadyExists, NotFound (namespace).
func (s *Service) Create(ctx context.Context, t Target, body []byte, opts WriteOptions) (Result, error) {
	body, warnings, err := duplicateFields(t, body, opts.FieldValidation)
	if err != nil {
		return Result{}, err
	}
	r, err := s.create(ctx, t, body, opts)
	r.Warnings = append(warnings, r.Warnings...)
	return r, err
}

func (s *Service) create(ctx context.Context, t Target, body []byte, opts WriteOptions) (Result, error) {
	if err := checkTypeMeta(t, body); err != nil {
		return Result{}, err
	}
	m, err := parseMeta(t, body)
	if err != nil {
		return Result{}, err
	}
	if m.ResourceVersion != "" {
		return Result{}, engine.Errorf(engine.CodeBadRequest, "resourceVersion should not be set on objects to be created")
	}
	s.prepareCreateMeta(t, m)
	obj, err := meta.Set(body, m)
	if err != nil {
		return Result{}, err
	}
	if obj, err = prepareCreateBody(t, obj); err != nil {
		return Result{}, err
	}
	metaErrs := meta.ValidateCreate(m, t.Resource.Namespaced, meta.NameRule(isNamespaces(t)))
	obj, warnings, err := admit(t, m.Name, obj, nil, metaErrs, opts)
	if err == nil {
		var more []string
		more, err = s.check(t, m.Name, obj)
		warnings = append(warnings, more...)
	}
	if err != nil {
		return Result{}, err
	}
	if opts.DryRun {
		return Result{Object: obj, Warnings: warnings}, nil
	}
	stored, err := toStorage(t, m.Name, obj, 0, nil)
	if err != nil {
		return Result{}, err
	}
	created, err := s.Store.Create(ctx, stored)
	if err != nil {
		return Result{}, err
	}
	out, err := fromStorage(t, created)
	return Result{Object: out, Warnings: warnings}, err
}

// prepareCreateMeta fills the metadata the server owns on create.
func (s *Service) prepareCreateMeta(t Target, m *metav1.ObjectMeta) {
	if m.Name == "" && m.GenerateName != "" {
		m.Name = meta.GenerateName(m.GenerateName)
	}
	m.UID = types.UID(newUID())
	m.CreationTimestamp = metav1.NewTime(s.Now().UTC().Truncate(1e9))
	m.Generation = 1
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.ManagedFields = nil
	m.SelfLink = "" // no longer populated by Kubernetes: drop what a client sent
	if isNamespaces(t) {
		prepareNamespaceMeta(m)
	}
}

// prepareCreateBody drops what a create may not set: the status of a kind
// with a status subresource is written only through it, as kube-apiserver does.
func prepareCreateBody(t Target, obj []byte) ([]byte, error) {
	if isNamespaces(t) {
		return prepareNamespaceBody(obj)
	}
	if !t.Version.Subresources.Status {
		return obj, nil
	}
	out, err := sjson.DeleteBytes(obj, "status")
	if err != nil {
		return nil, fmt.Errorf("drop status: %w", err)
	}
	return out, nil
}

// newUID returns a random (version 4) UUID.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
