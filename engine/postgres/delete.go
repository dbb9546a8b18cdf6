package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// deleteSQL removes an object and logs the DELETED event with the last
// state stored once, as prev_body (and prev_remainder): the event's object
// is that state at the delete's resourceVersion, which logRow.event
// derives, so body and remainder stay NULL rather than hold a second copy
// that differs only in metadata.resourceVersion. As in updateSQL, cur
// reads the snapshot so that a missing row or a failed precondition
// consumes no resourceVersion. It answers that last state as stored:
// Delete stamps the delete's resourceVersion into its text, which costs
// less than rebuilding the jsonb for it here.
//
// $1 resource, $2 namespace, $3 name, $4 expected resourceVersion (0: any).
const deleteSQL = `
WITH cur AS (
	SELECT resource_version FROM objects
	WHERE resource = $1 AND namespace = $2 AND name = $3
), next AS (
	SELECT nextval('resource_version') AS rv FROM cur
	WHERE $4::bigint = 0 OR cur.resource_version = $4::bigint
), deleted AS (
	DELETE FROM objects o USING next
	WHERE o.resource = $1 AND o.namespace = $2 AND o.name = $3
		AND ($4::bigint = 0 OR o.resource_version = $4::bigint)
	RETURNING next.rv, o.resource_version AS prev_rv, o.stored_version, o.body AS prev_body, o.remainder
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body,
		prev_body, prev_resource_version, stored_version, prev_stored_version, remainder, prev_remainder)
	SELECT rv, $1, $2, $3, 'DELETED', NULL, prev_body, prev_rv, stored_version, stored_version, NULL, remainder
	FROM deleted
)
SELECT cur.resource_version, deleted.rv, coalesce(deleted.stored_version, ''), deleted.prev_body, deleted.remainder
FROM (SELECT) AS one LEFT JOIN cur ON true LEFT JOIN deleted ON true`

// Delete removes the object at key and returns its last state with
// metadata.resourceVersion set to the delete's resourceVersion, as the etcd3
// storage of kube-apiserver does. A non-zero expectedRV must equal the
// current resourceVersion. Errors: NotFound, Conflict.
func (s *Store) Delete(ctx context.Context, key engine.ObjectKey, expectedRV int64) (engine.Object, error) {
	defer s.metrics.since("delete", key.Resource, time.Now())
	var curRV, newRV *int64
	obj := engine.Object{Key: key}
	err := s.write(ctx, statement{sql: deleteSQL, key: key,
		args: []any{resourceColumn(key.Resource), key.Namespace, key.Name, expectedRV},
		dest: []any{&curRV, &newRV, &obj.StoredVersion, &obj.Body, &obj.Remainder}})
	switch {
	case err != nil:
		return engine.Object{}, translate("delete", key, err)
	case curRV == nil:
		return engine.Object{}, engine.NewNotFound(key.Resource, key.Name)
	case expectedRV != 0 && *curRV != expectedRV:
		return engine.Object{}, preconditionConflict(key, expectedRV, *curRV)
	case newRV == nil:
		return engine.Object{}, s.lostRace(ctx, key)
	}
	s.changed()
	obj.Body, obj.Remainder = fromJSONB(obj.Body), remainderFromJSONB(obj.Remainder)
	if err := s.openObject(ctx, &obj); err != nil {
		return engine.Object{}, translate("delete", key, err)
	}
	return stamped(obj, *newRV, rvSlot{})
}

// preconditionConflict is the Conflict kube-apiserver returns for a delete
// whose resourceVersion precondition fails.
func preconditionConflict(key engine.ObjectKey, expected, actual int64) error {
	return engine.NewConflict(key.Resource, key.Name, fmt.Sprintf(
		"the ResourceVersion in the precondition (%d) does not match the ResourceVersion in record (%d). "+
			"The object might have been modified", expected, actual))
}
