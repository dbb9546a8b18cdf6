package storageversionmigration

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	svmv1 "k8s.io/api/storagemigration/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

// storageMigrating is the CustomResourceDefinition condition kube's
// runner keeps while a migration of its resource runs.
const storageMigrating = "StorageMigrating"

// definitionStarted marks the CustomResourceDefinition of m's resource,
// when one was created through the API, StorageMigrating, with its
// generation: a definition changed before the migration ends keeps its
// storedVersions (another storage version may have come).
func (c *Controller) definitionStarted(ctx context.Context, l *look, m *migration) error {
	return c.updateDefinition(ctx, l, m.svm.Spec.Resource, func(def []byte, s *definitionStatus) {
		apimeta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: storageMigrating, Status: metav1.ConditionTrue,
			Reason: "MigrationRunning", Message: fmt.Sprintf("Migration %s is running", m.svm.Name),
			ObservedGeneration: generation(def), LastTransitionTime: metav1.NewTime(c.Now())})
	})
}

// definitionFinished ends StorageMigrating and, after a success and when
// the definition did not change since the migration started, trims its
// status.storedVersions to the storage version, as kube's runner does:
// no object is stored in another.
func (c *Controller) definitionFinished(ctx context.Context, l *look, m *migration) error {
	success := isTrue(&m.svm, svmv1.MigrationSucceeded)
	return c.updateDefinition(ctx, l, m.svm.Spec.Resource, func(def []byte, s *definitionStatus) {
		gen := generation(def)
		cond := apimeta.FindStatusCondition(s.Conditions, storageMigrating)
		trim := cond != nil && cond.ObservedGeneration == gen
		reason, msg := "MigrationFailed", "The migration has failed"
		switch {
		case success && trim && storageVersion(def) != "":
			reason, msg = "MigrationSucceeded", "The migration has succeeded and the stored versions have been updated"
			s.StoredVersions = []string{storageVersion(def)}
		case success:
			reason, msg = "MigrationSucceeded", "The migration has succeeded but the stored versions have not been updated due to a generation mismatch"
		}
		apimeta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: storageMigrating, Status: metav1.ConditionFalse,
			Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(c.Now())})
	})
}

// definitionStatus is what the migration reads and writes of a
// definition's status; its other fields are kept as they are.
type definitionStatus struct {
	Conditions     []metav1.Condition
	StoredVersions []string
}

// updateDefinition edits the status of gr's CustomResourceDefinition, if
// one was created through the API, and writes it through /status; after
// a Conflict (its controller wrote it meanwhile) it reads it again and
// edits that. Errors: those of reading and writing it.
func (c *Controller) updateDefinition(ctx context.Context, l *look, gr metav1.GroupResource, edit func(def []byte, s *definitionStatus)) error {
	r, v, ok := l.snap.Lookup(crd.GroupResource.Group, "v1", crd.GroupResource.Resource)
	if !ok {
		return nil
	}
	t := resource.Target{Resource: r, Version: v, Subresource: "status"}
	name := gr.Resource + "." + gr.Group
	for attempt := 1; ; attempt++ {
		def, err := c.service.Get(ctx, t, name)
		if engine.ErrorCode(err) == engine.CodeNotFound {
			return nil // a kind from a definition file, or none
		}
		if err != nil {
			return err
		}
		body, err := editStatus(def, edit)
		if err != nil {
			return err
		}
		_, err = c.service.Update(ctx, t, name, body, resource.WriteOptions{FieldManager: storagemigration.FieldManager})
		if engine.ErrorCode(err) != engine.CodeConflict || attempt == maxAttempts {
			return err
		}
	}
}

// editStatus applies edit to the conditions and storedVersions of def.
func editStatus(def []byte, edit func(def []byte, s *definitionStatus)) ([]byte, error) {
	var s definitionStatus
	if raw := gjson.GetBytes(def, "status.conditions").Raw; raw != "" {
		if err := json.Unmarshal([]byte(raw), &s.Conditions); err != nil {
			return nil, fmt.Errorf("decode conditions: %w", err)
		}
	}
	for _, v := range gjson.GetBytes(def, "status.storedVersions").Array() {
		s.StoredVersions = append(s.StoredVersions, v.Str)
	}
	edit(def, &s)
	body, err := sjson.SetBytes(def, "status.conditions", s.Conditions)
	if err != nil {
		return nil, fmt.Errorf("set conditions: %w", err)
	}
	if body, err = sjson.SetBytes(body, "status.storedVersions", s.StoredVersions); err != nil {
		return nil, fmt.Errorf("set storedVersions: %w", err)
	}
	return body, nil
}

func generation(def []byte) int64 { return gjson.GetBytes(def, "metadata.generation").Int() }

// storageVersion is the version spec.versions marks storage.
func storageVersion(def []byte) string {
	for _, v := range gjson.GetBytes(def, "spec.versions").Array() {
		if v.Get("storage").Bool() {
			return v.Get("name").Str
		}
	}
	return ""
}
