package postgres

import (
	"context"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// updateSQL replaces an object whose resourceVersion is $5 and logs the
// MODIFIED event with the previous state. cur reads the row in the
// statement's snapshot: a missing row or another resourceVersion does not
// consume a resourceVersion. When the UPDATE succeeds, no write came between
// that snapshot and its row lock (every write changes resource_version), so
// cur holds the true previous state.
//
// $1 resource, $2 namespace, $3 name, $4 expected resourceVersion, $5 uid,
// $6 stored version, $7 body (JSON text), $8 labels, $9 remainder, $10
// defaults stamp, $11-$13 where the resourceVersion goes in the body
// (rvSlot).
const updateSQL = `
WITH cur AS (
	SELECT resource_version, stored_version, body, remainder FROM objects
	WHERE resource = $1 AND namespace = $2 AND name = $3
), next AS (
	SELECT nextval('resource_version') AS rv FROM cur
	WHERE cur.resource_version = $4::bigint
), updated AS (
	UPDATE objects o SET resource_version = next.rv, uid = NULLIF($5::text, '')::uuid, stored_version = $6,
		body = body_at_resource_version($7::bytea, next.rv, $11, $12, $13), labels = $8::jsonb, remainder = $9::jsonb, defaults_stamp = $10::bigint
	FROM next
	WHERE o.resource = $1 AND o.namespace = $2 AND o.name = $3 AND o.resource_version = $4::bigint
	RETURNING o.resource_version, o.body
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body,
		prev_body, prev_resource_version, stored_version, prev_stored_version, remainder, prev_remainder)
	SELECT u.resource_version, $1, $2, $3, 'MODIFIED', u.body, cur.body, cur.resource_version, $6, cur.stored_version,
		$9::jsonb, cur.remainder
	FROM updated u, cur
)
SELECT cur.resource_version, updated.resource_version
FROM (SELECT) AS one LEFT JOIN cur ON true LEFT JOIN updated ON true`

// Update replaces the object at obj.Key if its current resourceVersion is
// obj.ResourceVersion, and returns it with its new resourceVersion set in
// metadata.resourceVersion. Errors: NotFound; Conflict for any other
// resourceVersion (including 0).
func (s *Store) Update(ctx context.Context, obj engine.Object) (engine.Object, error) {
	defer s.metrics.since("update", obj.Key.Resource, time.Now())
	key, cols, t := obj.Key, columnsOf(obj.Body), s.transformer(obj.Key.Resource)
	body, remainder, err := seal(ctx, t, key, obj.Body, obj.Remainder)
	if err != nil {
		return engine.Object{}, translate("update", key, err)
	}
	row := &writeRow{resource: resourceColumn(key.Resource), namespace: key.Namespace, name: key.Name, uid: cols.uid,
		storedVersion: obj.StoredVersion, body: body, labels: cols.labels, remainder: remainder,
		defaultsStamp: int64(obj.DefaultsStamp), slot: slotOf(body), expected: obj.ResourceVersion}
	var curRV, newRV *int64
	err = s.write(ctx, statement{sql: updateSQL, key: key, args: row.updateArgs(), row: row,
		dest: []any{&curRV, &newRV}})
	switch {
	case err != nil:
		return engine.Object{}, translate("update", key, err)
	case curRV == nil:
		return engine.Object{}, engine.NewNotFound(key.Resource, key.Name)
	case *curRV != obj.ResourceVersion:
		return engine.Object{}, engine.NewModified(key.Resource, key.Name)
	case newRV == nil:
		return engine.Object{}, s.lostRace(ctx, key)
	}
	s.changed()
	return stamped(obj, *newRV, answerSlot(row.slot, t))
}

// lostRace explains a write whose precondition held in its snapshot but
// not once it had the row: the object was changed (Conflict) or deleted
// (NotFound) meanwhile.
func (s *Store) lostRace(ctx context.Context, key engine.ObjectKey) error {
	if _, err := s.Get(ctx, key); err != nil {
		return err
	}
	return engine.NewModified(key.Resource, key.Name)
}
