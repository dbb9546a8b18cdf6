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
// consumes no resourceVersion. It answers that last state only to a
// delete without a precondition: with one, the caller holds it already
// (see Delete), and printing it (1.7 KB for a Widget, which dynapi then
// compacts) took 5% of a delete's CPU, PostgreSQL's and dynapi's alike
// (dynapi-bench, three interleaved rounds: 184-194 -> 176-187 µs).
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
SELECT cur.resource_version, deleted.rv, coalesce(deleted.stored_version, ''),
	CASE WHEN $4::bigint = 0 THEN deleted.prev_body END, CASE WHEN $4::bigint = 0 THEN deleted.remainder END
FROM (SELECT) AS one LEFT JOIN cur ON true LEFT JOIN deleted ON true`

// Delete removes the object at last.Key and returns its last state with
// metadata.resourceVersion set to the delete's resourceVersion, as the etcd3
// storage of kube-apiserver does. A non-zero last.ResourceVersion is a
// precondition, and last must then be the object as stored at it (as Get
// or a write returned it): it is the answer, stamped, and the database
// does not send it back. With zero, whatever is stored goes, and is read
// back. Errors: NotFound, Conflict.
func (s *Store) Delete(ctx context.Context, last engine.Object) (engine.Object, error) {
	defer s.metrics.since("delete", last.Key.Resource, time.Now())
	key, expectedRV := last.Key, last.ResourceVersion
	var curRV, newRV *int64
	var storedVersion string
	var body, remainder []byte
	err := s.write(ctx, statement{sql: deleteSQL, key: key,
		args: []any{resourceColumn(key.Resource), key.Namespace, key.Name, expectedRV},
		dest: []any{&curRV, &newRV, &storedVersion, &body, &remainder}})
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
	if expectedRV == 0 {
		last = engine.Object{Key: key, StoredVersion: storedVersion, Body: fromJSONB(body), Remainder: remainderFromJSONB(remainder)}
		if err := s.openObject(ctx, &last); err != nil {
			return engine.Object{}, translate("delete", key, err)
		}
	}
	return stamped(last, *newRV, rvSlot{})
}

// preconditionConflict is the Conflict kube-apiserver returns for a delete
// whose resourceVersion precondition fails.
func preconditionConflict(key engine.ObjectKey, expected, actual int64) error {
	return engine.NewConflict(key.Resource, key.Name, fmt.Sprintf(
		"the ResourceVersion in the precondition (%d) does not match the ResourceVersion in record (%d). "+
			"The object might have been modified", expected, actual))
}
