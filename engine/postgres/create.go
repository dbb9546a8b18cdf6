package postgres

import (
	"context"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// createSQL inserts an object and its ADDED event in one statement. The
// checks read the statement's snapshot, so that the usual failures (missing
// or terminating namespace, existing name) do not consume a
// resourceVersion: every gap in the sequence makes watchers wait. Only a
// race with another create of the same name still fails late, on the
// primary key.
//
// namespace_state is 'active', 'terminating' (it has a deletionTimestamp:
// it is being emptied) or NULL (no such namespace).
//
// $1 resource, $2 namespace, $3 name, $4 uid, $5 stored version, $6 body
// (JSON text), $7 labels, $8 remainder, $9 defaults stamp, $10-$12 where
// the resourceVersion goes in the body (rvSlot).
const createSQL = `
WITH checks AS (
	SELECT CASE WHEN $2::text = '' THEN 'active' ELSE (
			SELECT CASE WHEN body->'metadata' ? 'deletionTimestamp' THEN 'terminating' ELSE 'active' END
			FROM objects WHERE resource = 'namespaces' AND namespace = '' AND name = $2::text) END AS namespace_state,
		EXISTS (SELECT FROM objects WHERE resource = $1 AND namespace = $2 AND name = $3) AS taken
), next AS (
	SELECT nextval('resource_version') AS rv FROM checks
	WHERE namespace_state = 'active' AND NOT taken
), inserted AS (
	INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body, labels, remainder, defaults_stamp)
	SELECT $1, $2, $3, NULLIF($4::text, '')::uuid, rv, $5, body_at_resource_version($6::bytea, rv, $10, $11, $12), $7::jsonb, $8::jsonb, $9::bigint
	FROM next
	RETURNING resource_version, body
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version, remainder)
	SELECT resource_version, $1, $2, $3, 'ADDED', body, $5, $8::jsonb FROM inserted
)
SELECT checks.namespace_state, checks.taken, inserted.resource_version
FROM checks LEFT JOIN inserted ON true`

// Create stores a new object and returns it with its new resourceVersion
// set in metadata.resourceVersion; the body must be valid JSON. Errors:
// AlreadyExists; NotFound (Kind "namespaces") when obj.Key.Namespace is set
// and no such Namespace exists; Forbidden when it is being deleted.
func (s *Store) Create(ctx context.Context, obj engine.Object) (engine.Object, error) {
	defer s.metrics.since("create", obj.Key.Resource, time.Now())
	key, cols, t := obj.Key, columnsOf(obj.Body), s.transformer(obj.Key.Resource)
	body, remainder, err := seal(ctx, t, key, obj.Body, obj.Remainder)
	if err != nil {
		return engine.Object{}, translate("create", key, err)
	}
	row := &writeRow{resource: resourceColumn(key.Resource), namespace: key.Namespace, name: key.Name, uid: cols.uid,
		storedVersion: obj.StoredVersion, body: body, labels: cols.labels, remainder: remainder,
		defaultsStamp: int64(obj.DefaultsStamp), slot: slotOf(body)}
	var nsState *string
	var taken bool
	var rv *int64
	s.noteCreate()
	err = s.write(ctx, statement{sql: createSQL, key: key, args: row.createArgs(), row: row,
		dest: []any{&nsState, &taken, &rv}})
	switch {
	case err != nil:
		return engine.Object{}, translate("create", key, err)
	case nsState == nil:
		return engine.Object{}, namespaceNotFound(key.Namespace)
	case *nsState == "terminating":
		return engine.Object{}, namespaceTerminating(key)
	case taken || rv == nil:
		return engine.Object{}, engine.NewAlreadyExists(key.Resource, key.Name)
	}
	s.changed()
	return stamped(obj, *rv, answerSlot(row.slot, t))
}

// writeRow is one create's or update's arguments: createSQL's and
// updateSQL's, and one row of createsSQL's and updatesSQL's.
type writeRow struct {
	resource, namespace, name, uid, storedVersion, labels string
	body, remainder                                       []byte // remainder: nil for none
	defaultsStamp                                         int64
	slot                                                  rvSlot
	expected                                              int64 // an update's: the resourceVersion it replaces
}

// createArgs are createSQL's arguments.
func (r *writeRow) createArgs() []any {
	at, cut, prefix := r.slot.args()
	return []any{r.resource, r.namespace, r.name, r.uid, r.storedVersion, r.body, r.labels, r.remainder,
		r.defaultsStamp, at, cut, prefix}
}

// updateArgs are updateSQL's arguments.
func (r *writeRow) updateArgs() []any {
	at, cut, prefix := r.slot.args()
	return []any{r.resource, r.namespace, r.name, r.expected, r.uid, r.storedVersion, r.body, r.labels, r.remainder,
		r.defaultsStamp, at, cut, prefix}
}
