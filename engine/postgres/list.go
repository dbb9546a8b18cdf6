package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
)

// currentRVSQL reads the newest resourceVersion handed out (0 before any).
const currentRVSQL = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM resource_version`

// listPlan is a List statement and how to page through its rows.
type listPlan struct {
	sql   string
	args  []any
	limit int64 // 0: no limit
}

// List calls each for every object matching opts in (namespace, name) order
// (then resource, when opts.Resource is zero), streaming rows from the
// database, and stops at the first error each returns, which it returns
// as is. ListMeta.ResourceVersion is the first page's; Continue is set when
// more objects follow; RemainingItemCount is left nil (counting is not cheap).
// Errors: BadRequest for a bad continue token, an unsupported field
// selector path or operator, or a malformed label requirement.
func (s *Store) List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	var after *continueToken
	if opts.Continue != "" {
		t, err := decodeContinue(opts.Continue)
		if err != nil {
			return engine.ListMeta{}, err
		}
		after = &t
	}
	plan, err := buildList(opts, after)
	if err != nil {
		return engine.ListMeta{}, err
	}
	if after != nil {
		return listPage(ctx, s.pool, plan, after.RV, each)
	}
	return s.listFirstPage(ctx, plan, each)
}

// listFirstPage reads the list's resourceVersion and its rows in one
// snapshot, so that the resourceVersion covers every object listed.
func (s *Store) listFirstPage(ctx context.Context, plan listPlan, each func(engine.Object) error) (engine.ListMeta, error) {
	// Later, consistent lists take writeLockKey exclusively before this
	// snapshot. Note that in REPEATABLE READ the first SELECT, even of
	// pg_advisory_xact_lock, freezes the snapshot: the lock must be taken
	// before BEGIN (a session lock) for the snapshot to follow it.
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return engine.ListMeta{}, fmt.Errorf("begin list: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only: nothing to commit
	var rv int64
	if err := tx.QueryRow(ctx, currentRVSQL).Scan(&rv); err != nil {
		return engine.ListMeta{}, fmt.Errorf("read resourceVersion: %w", err)
	}
	return listPage(ctx, tx, plan, rv, each)
}

// listPage streams one page of rows to each. It fetches one row more than
// the limit to learn whether another page follows.
func listPage(ctx context.Context, db dbtx, plan listPlan, rv int64, each func(engine.Object) error) (engine.ListMeta, error) {
	rows, err := db.Query(ctx, plan.sql, plan.args...)
	if err != nil {
		return engine.ListMeta{}, fmt.Errorf("list objects: %w", err)
	}
	defer rows.Close()
	meta := engine.ListMeta{ResourceVersion: rv}
	var n int64
	var last engine.ObjectKey
	for rows.Next() {
		if plan.limit > 0 && n == plan.limit {
			meta.Continue = continueToken{RV: rv, Namespace: last.Namespace, Name: last.Name,
				Resource: resourceColumn(last.Resource)}.encode()
			break
		}
		obj, err := scanObject(rows)
		if err != nil {
			return engine.ListMeta{}, err
		}
		if err := each(obj); err != nil {
			return engine.ListMeta{}, err
		}
		n, last = n+1, obj.Key
	}
	if err := rows.Err(); err != nil {
		return engine.ListMeta{}, fmt.Errorf("list objects: %w", err)
	}
	return meta, nil
}

// scanObject reads one row of listColumns.
func scanObject(rows pgx.Rows) (engine.Object, error) {
	var obj engine.Object
	var resource string
	err := rows.Scan(&resource, &obj.Key.Namespace, &obj.Key.Name, &obj.ResourceVersion, &obj.StoredVersion, &obj.Body)
	if err != nil {
		return engine.Object{}, fmt.Errorf("scan object: %w", err)
	}
	obj.Key.Resource = parseResource(resource)
	obj.Body = fromJSONB(obj.Body)
	return obj, nil
}

// listColumns are the columns scanObject reads.
const listColumns = "SELECT resource, namespace, name, resource_version, stored_version, body FROM objects"

// buildList turns opts into a statement resuming after the continue token,
// if any. Keyset pagination: each page seeks past the last key returned.
func buildList(opts engine.ListOptions, after *continueToken) (listPlan, error) {
	q := &listQuery{}
	all := opts.Resource == engine.GroupResource{}
	if !all {
		q.where = append(q.where, "resource = "+q.arg(resourceColumn(opts.Resource)))
	}
	if opts.Namespace != "" {
		q.where = append(q.where, "namespace = "+q.arg(opts.Namespace))
	}
	if err := q.addSelectors(opts); err != nil {
		return listPlan{}, err
	}
	order := " ORDER BY namespace, name" // the primary key's order after resource
	switch {
	case all && after != nil:
		q.where = append(q.where, "(namespace, name, resource) > ("+q.arg(after.Namespace)+"::text, "+
			q.arg(after.Name)+"::text, "+q.arg(after.Resource)+"::text)")
		order += ", resource"
	case all:
		order += ", resource"
	case after != nil:
		q.where = append(q.where, "(namespace, name) > ("+q.arg(after.Namespace)+"::text, "+q.arg(after.Name)+"::text)")
	}
	plan := listPlan{sql: listColumns + q.whereClause() + order, limit: opts.Limit}
	if opts.Limit > 0 {
		plan.sql += " LIMIT " + q.arg(min(opts.Limit, math.MaxInt64-1)+1)
	}
	plan.args = q.args
	return plan, nil
}

// addSelectors adds the label and field requirements of opts.
func (q *listQuery) addSelectors(opts engine.ListOptions) error {
	for _, r := range opts.Labels {
		if err := q.addLabel(r); err != nil {
			return err
		}
	}
	for _, f := range opts.Fields {
		if err := q.addField(f); err != nil {
			return err
		}
	}
	return nil
}
