package postgres

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
)

// The questions garbage collection asks (engine/gc), each through a
// partial index of migrations/0006_owner_references.sql. Each returns at
// most limit objects after the key after (the zero key: from the start),
// in (resource, namespace, name) order, so that the collector pages
// through them holding one page at a time.

const ownerColumns = `o.resource, o.namespace, o.name, o.resource_version, o.stored_version, o.body, o.remainder,
	coalesce(o.defaults_stamp, 0)`

// ownedBySQL: the objects naming $1 as an owner. The keys are found
// through the owner uids index first (materialized), then paged. Why: with
// ORDER BY and LIMIT beside it, PostgreSQL may walk every dependent in key
// order through objects_dependents and filter, which reads all of them
// for each owner.
const ownedBySQL = `WITH d AS MATERIALIZED (
	SELECT resource, namespace, name FROM objects
	WHERE (body -> 'metadata') ? 'ownerReferences' AND owner_uids(body) @> jsonb_build_array($1::text)
)
SELECT ` + ownerColumns + ` FROM d JOIN objects o USING (resource, namespace, name)
WHERE (d.resource, d.namespace, d.name) > ($2::text, $3::text, $4::text)
ORDER BY d.resource, d.namespace, d.name LIMIT $5`

// ownerlessSQL: the objects with ownerReferences none of which names an
// object that exists where the dependent can see it (cluster-scoped, or
// in the dependent's namespace), as kube-controller-manager's collector
// resolves owners. A uid that is not a UUID names nothing.
const ownerlessSQL = `SELECT ` + ownerColumns + ` FROM objects o
WHERE (o.body -> 'metadata') ? 'ownerReferences'
	AND (o.resource, o.namespace, o.name) > ($1::text, $2::text, $3::text)
	AND NOT EXISTS (SELECT FROM ` + refsSQL + ` WHERE EXISTS (SELECT FROM objects p WHERE ` + resolvesSQL + `))
ORDER BY o.resource, o.namespace, o.name LIMIT $4`

// resolvesSQL is the condition that reference r of dependent o names an
// object that exists where o can see it: p found by uid, through its index
// (one lookup per reference).
const resolvesSQL = `p.uid = CASE WHEN r ->> 'uid' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
			THEN (r ->> 'uid')::uuid END AND (p.namespace = '' OR p.namespace = o.namespace)`

// refsSQL are the ownerReferences of o, as rows r.
const refsSQL = `jsonb_array_elements(CASE WHEN jsonb_typeof(o.body -> 'metadata' -> 'ownerReferences') = 'array'
			THEN o.body -> 'metadata' -> 'ownerReferences' ELSE '[]' END) r`

// partlyOwnedSQL: the objects with an owner that exists and a reference
// to one that does not.
const partlyOwnedSQL = `SELECT ` + ownerColumns + ` FROM objects o
WHERE (o.body -> 'metadata') ? 'ownerReferences'
	AND (o.resource, o.namespace, o.name) > ($1::text, $2::text, $3::text)
	AND EXISTS (SELECT FROM ` + refsSQL + ` WHERE EXISTS (SELECT FROM objects p WHERE ` + resolvesSQL + `))
	AND EXISTS (SELECT FROM ` + refsSQL + ` WHERE NOT EXISTS (SELECT FROM objects p WHERE ` + resolvesSQL + `))
ORDER BY o.resource, o.namespace, o.name LIMIT $4`

// presentOwnersSQL: the uids of the owners of the object $1/$2/$3 that exist.
const presentOwnersSQL = `SELECT DISTINCT p.uid::text FROM objects o CROSS JOIN LATERAL ` + refsSQL + ` JOIN objects p ON ` + resolvesSQL + `
WHERE o.resource = $1 AND o.namespace = $2 AND o.name = $3`

// finalizingSQL: the objects marked for deletion that wait for the
// collector (foregroundDeletion or orphan finalizer).
const finalizingSQL = `SELECT ` + ownerColumns + ` FROM objects o
WHERE (o.body -> 'metadata' -> 'finalizers') ?| array['foregroundDeletion', 'orphan']
	AND (o.body -> 'metadata') ? 'deletionTimestamp'
	AND (o.resource, o.namespace, o.name) > ($1::text, $2::text, $3::text)
ORDER BY o.resource, o.namespace, o.name LIMIT $4`

// OwnedBy returns the objects whose ownerReferences name uid.
func (s *Store) OwnedBy(ctx context.Context, uid string, after engine.ObjectKey, limit int) ([]engine.Object, error) {
	return s.ownerQuery(ctx, "list dependents", ownedBySQL, uid, resourceAfter(after), after.Namespace, after.Name, limit)
}

// Ownerless returns the objects with ownerReferences whose owners are all
// absent: no object has their uid, or it is in another namespace.
func (s *Store) Ownerless(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error) {
	return s.ownerQuery(ctx, "list ownerless dependents", ownerlessSQL, resourceAfter(after), after.Namespace, after.Name, limit)
}

// PartlyOwned returns the objects with an owner that exists and a
// reference to one that does not.
func (s *Store) PartlyOwned(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error) {
	return s.ownerQuery(ctx, "list partly owned dependents", partlyOwnedSQL, resourceAfter(after), after.Namespace, after.Name, limit)
}

// PresentOwners returns the uids of the owners of the object key that
// exist where it can see them (none when it is gone).
func (s *Store) PresentOwners(ctx context.Context, key engine.ObjectKey) ([]string, error) {
	rows, err := s.pool.Query(ctx, presentOwnersSQL, resourceColumn(key.Resource), key.Namespace, key.Name)
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	uids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	return uids, nil
}

// Finalizing returns the objects marked for deletion that carry the
// foregroundDeletion or the orphan finalizer.
func (s *Store) Finalizing(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error) {
	return s.ownerQuery(ctx, "list objects deleted in foreground or orphaning", finalizingSQL, resourceAfter(after), after.Namespace, after.Name, limit)
}

// resourceAfter is the resource column of a paging key; "" before every key.
func resourceAfter(k engine.ObjectKey) string {
	if k.Resource == (engine.GroupResource{}) {
		return ""
	}
	return resourceColumn(k.Resource)
}

func (s *Store) ownerQuery(ctx context.Context, what, sql string, args ...any) ([]engine.Object, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []engine.Object
	for rows.Next() {
		obj, err := scanObject(rows)
		if err != nil {
			return nil, err
		}
		if err := s.openObject(ctx, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, obj)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
