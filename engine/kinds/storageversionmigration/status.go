package storageversionmigration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tidwall/sjson"
	svmv1 "k8s.io/api/storagemigration/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

// maxAttempts bounds the re-reads of a status write after a Conflict
// (someone wrote the object meanwhile: a label, a condition of their own).
const maxAttempts = 5

// migration is one StorageVersionMigration as last read: its JSON, and
// what was decoded of it.
type migration struct {
	obj []byte
	svm svmv1.StorageVersionMigration
}

// parse decodes a migration. Errors: a body that is not one.
func parse(obj []byte) (*migration, error) {
	m := &migration{obj: bytes.Clone(obj)} // a list may reuse its buffers
	if err := json.Unmarshal(m.obj, &m.svm); err != nil {
		return nil, fmt.Errorf("decode StorageVersionMigration: %w", err)
	}
	return m, nil
}

// running reports whether Running is True: kube's runner promoted it.
func (m *migration) running() bool { return isTrue(&m.svm, svmv1.MigrationRunning) }

// ended reports whether Succeeded or Failed is True.
func (m *migration) ended() bool {
	return isTrue(&m.svm, svmv1.MigrationSucceeded) || isTrue(&m.svm, svmv1.MigrationFailed)
}

// pending reports whether m has something left to do: it has not ended,
// or it has and is still Running (not completed).
func (m *migration) pending() bool { return m.running() || !m.ended() }

// reread reads m again. Errors: those of Get.
func (c *Controller) reread(ctx context.Context, l *look, m *migration) error {
	obj, err := c.service.Get(ctx, l.t, m.svm.Name)
	if err != nil {
		return err
	}
	fresh, err := parse(obj)
	if err == nil {
		*m = *fresh
	}
	return err
}

// change edits a status, and reports whether it changed anything.
type change func(*svmv1.StorageVersionMigrationStatus) bool

// update writes m's status through /status, edited by each change, when
// one changed it; after a Conflict it reads m again and edits that.
// Errors: those of the write and of the re-read.
func (c *Controller) update(ctx context.Context, l *look, m *migration, changes ...change) error {
	t := l.t
	t.Subresource = "status"
	for attempt := 1; ; attempt++ {
		changed := false
		for _, ch := range changes {
			changed = ch(&m.svm.Status) || changed
		}
		if !changed {
			return nil
		}
		status, err := json.Marshal(m.svm.Status)
		if err != nil {
			return fmt.Errorf("encode status: %w", err)
		}
		body, err := sjson.SetRawBytes(m.obj, "status", status)
		if err != nil {
			return fmt.Errorf("set status: %w", err)
		}
		res, err := c.service.Update(ctx, t, m.svm.Name, body, resource.WriteOptions{FieldManager: storagemigration.FieldManager})
		if err == nil {
			fresh, err := parse(res.Object)
			if err == nil {
				*m = *fresh
			}
			return err
		}
		if engine.ErrorCode(err) != engine.CodeConflict || attempt == maxAttempts {
			return err
		}
		if err := c.reread(ctx, l, m); err != nil {
			return err
		}
	}
}

// condition sets a condition as kube's controllers do
// (meta.SetStatusCondition: the transition time kept while the status
// stays).
func (c *Controller) condition(typ string, status metav1.ConditionStatus, reason, message string, generation int64) change {
	return func(s *svmv1.StorageVersionMigrationStatus) bool {
		return apimeta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
			Message: message, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(c.Now())})
	}
}

// Kube's reasons and messages.
const (
	runningReason   = "MigrationRunning"
	succeededReason = "StorageVersionMigrationSucceeded"
	failedReason    = "StorageVersionMigrationFailed"
	completedReason = "MigrationCompleted"
	completed       = "Migration completed"
)

// runningMessage is kube's Running message: how many objects are left of
// how many, once a page was looked at, and the transient error the
// migration waits out.
func runningMessage(r *storagemigration.Report, transient error) string {
	msg := "The migration is running"
	if r != nil && r.Total > 0 {
		if left := r.Pending(); left > 0 {
			msg += fmt.Sprintf(", %d/%d objects not yet migrated", left, r.Total)
		} else {
			msg += fmt.Sprintf(", %d objects verified migrated", r.Total)
		}
	}
	if transient != nil {
		msg += fmt.Sprintf("; transient error: %s", transient)
	}
	return msg
}
