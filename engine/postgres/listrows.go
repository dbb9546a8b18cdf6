package postgres

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// listHead is the m row of changedSQL.
type listHead struct{ horizon, seq, resolved int64 }

// readChanged runs the changed part of plan, whose first argument is first.
func readChanged(ctx context.Context, tx pgx.Tx, plan listPlan, first int64) (listHead, []engine.Object, error) {
	rows, err := tx.Query(ctx, plan.changed, withFirst(plan.changedArgs, first)...)
	if err != nil {
		return listHead{}, nil, fmt.Errorf("list changed objects: %w", err)
	}
	defer rows.Close()
	var head listHead
	var changed []engine.Object
	for rows.Next() {
		var r nullObjectRow
		var stamp *int64 // the log keeps none (noStampColumn); NULL in the row when no key changed
		if err := rows.Scan(&head.horizon, &head.seq, &head.resolved,
			&r.resource, &r.namespace, &r.name, &r.rv, &r.stored, &r.body, &r.remainder, &stamp); err != nil {
			return listHead{}, nil, fmt.Errorf("list changed objects: %w", err)
		}
		if r.name != nil { // nil: the one row when no key changed
			changed = append(changed, r.object())
		}
	}
	if err := rows.Err(); err != nil {
		return listHead{}, nil, fmt.Errorf("list changed objects: %w", err)
	}
	return head, changed, nil
}

// nullObjectRow is an object of changedSQL, all NULL in the row when no key changed.
type nullObjectRow struct {
	resource, namespace, name, stored *string
	rv                                *int64
	body, remainder                   []byte
}

func (r *nullObjectRow) object() engine.Object {
	return engine.Object{Key: engine.ObjectKey{Resource: parseResource(*r.resource), Namespace: *r.namespace, Name: *r.name},
		StoredVersion: *r.stored, ResourceVersion: *r.rv, Body: fromJSONB(r.body), Remainder: remainderFromJSONB(r.remainder)}
}

// merger merges the unchanged objects, streamed in key order, with the
// changed ones, also in key order. The two have no key in common.
type merger struct {
	rows    pgx.Rows
	changed []engine.Object
	all     bool // keys order by resource last
	row     engine.Object
	hasRow  bool  // row is read and not passed on yet
	sent    int64 // objects passed to each
	names   rowNames
}

// stream calls each for the merged objects up to limit (0: no limit), and
// sets Continue when more follow.
func (m *merger) stream(limit, rv int64, each func(engine.Object) error) (engine.ListMeta, error) {
	meta := engine.ListMeta{ResourceVersion: rv}
	var last engine.ObjectKey
	for {
		obj, ok, err := m.next()
		if err != nil || !ok {
			return meta, err
		}
		n := m.sent
		if limit > 0 && n == limit {
			meta.Continue = continueToken{RV: rv, Namespace: last.Namespace, Name: last.Name,
				Resource: resourceColumn(last.Resource)}.encode()
			return meta, nil
		}
		if err := each(obj); err != nil {
			return meta, err // with the state's resourceVersion, where a paused list reads on
		}
		m.sent, last = m.sent+1, obj.Key
	}
}

// next returns the next object in key order; false at the end.
func (m *merger) next() (engine.Object, bool, error) {
	if !m.hasRow && m.rows.Next() {
		obj, err := m.names.scan(m.rows)
		if err != nil {
			return engine.Object{}, false, err
		}
		m.row, m.hasRow = obj, true
	}
	if err := m.rows.Err(); err != nil {
		return engine.Object{}, false, fmt.Errorf("list objects: %w", err)
	}
	var obj engine.Object
	switch {
	case m.hasRow && (len(m.changed) == 0 || keyLess(m.row.Key, m.changed[0].Key, m.all)):
		obj, m.hasRow = m.row, false
	case len(m.changed) > 0:
		obj, m.changed = m.changed[0], m.changed[1:]
	default:
		return engine.Object{}, false, nil
	}
	return obj, true, nil
}

// keyLess orders keys as the list statements do: by namespace, name, then
// resource (for lists of every resource), in byte order (collation "C").
func keyLess(a, b engine.ObjectKey, all bool) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	if a.Name != b.Name || !all {
		return a.Name < b.Name
	}
	return resourceColumn(a.Resource) < resourceColumn(b.Resource)
}

// scanObject reads one row of unchangedSQL (or ownerColumns).
func scanObject(rows pgx.Rows) (engine.Object, error) {
	var names rowNames
	return names.scan(rows)
}

// rowNames are the resource, namespace and stored version of the last row
// scanned: the next rows of a list mostly share them, and share their
// strings too, instead of allocating three per row. It also holds the
// scan's destinations, made once: a destination passed to Scan escapes,
// and a fresh one per row was an allocation per column.
type rowNames struct {
	resource  engine.GroupResource
	column    string // resource's column
	namespace string
	stored    string
	row       scannedRow
	dest      []any // pointers into row
}

// scannedRow is one row of unchangedSQL as scanned: the bytes are pgx's
// read buffer, valid until the next row.
type scannedRow struct {
	resource, namespace, stored, body, remainder pgtype.DriverBytes
	name                                         string
	rv, stamp                                    int64
}

// scan reads one row of unchangedSQL (or ownerColumns). The body and
// remainder are compacted straight from pgx's read buffer, not from a
// copy of it.
func (n *rowNames) scan(rows pgx.Rows) (engine.Object, error) {
	r := &n.row
	if n.dest == nil {
		n.dest = []any{&r.resource, &r.namespace, &r.name, &r.rv, &r.stored, &r.body, &r.remainder, &r.stamp}
	}
	if err := rows.Scan(n.dest...); err != nil {
		return engine.Object{}, fmt.Errorf("scan object: %w", err)
	}
	if string(r.resource) != n.column {
		n.column = string(r.resource)
		n.resource = parseResource(n.column)
	}
	n.namespace = reuse(n.namespace, r.namespace)
	n.stored = reuse(n.stored, r.stored)
	return engine.Object{Key: engine.ObjectKey{Resource: n.resource, Namespace: n.namespace, Name: r.name},
		StoredVersion: n.stored, ResourceVersion: r.rv, DefaultsStamp: uint64(r.stamp),
		Body: fromJSONBInto(listBodies.get(len(r.body)), r.body), Remainder: remainderFromJSONB(r.remainder)}, nil
}

// reuse returns last when b spells it, else b as a new string.
func reuse(last string, b []byte) string {
	if string(b) == last {
		return last
	}
	return string(b)
}
