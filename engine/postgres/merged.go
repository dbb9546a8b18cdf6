package postgres

import (
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
)

// createsSQL is createSQL for several objects at once: the creates of one
// batch, one row each, in the order of the arrays. Each row gets what
// createSQL gives a create: the state of its namespace, whether its name
// was taken, and its resourceVersion when it was written. The checks read
// the statement's snapshot, so a name taken by a create that committed
// meanwhile fails it on the primary key, as it fails createSQL: the batch
// is rolled back and each create runs alone. Two creates of one name in
// one batch are not merged (see groupWrites).
//
// Why one statement: PostgreSQL starts and ends the executor for each
// statement, and opens every index of objects with it, which was a fifth
// of its CPU per create (perf); a batch of creates pays that once.
//
// $1 resources, $2 namespaces, $3 names, $4 uids, $5 stored versions, $6
// bodies (JSON text), $7 labels, $8 remainders (NULL for none), $9
// defaults stamps, $10-$12 the slots of the bodies' resourceVersions.
const createsSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[], $8::text[],
		$9::bigint[], $10::integer[], $11::integer[], $12::text[])
		WITH ORDINALITY AS i(resource, namespace, name, uid, stored_version, body, labels, remainder,
			defaults_stamp, slot_at, slot_cut, slot_prefix, ord)
), checks AS (
	SELECT i.*, CASE WHEN i.namespace = '' THEN 'active' ELSE (
			SELECT CASE WHEN n.body->'metadata' ? 'deletionTimestamp' THEN 'terminating' ELSE 'active' END
			FROM objects n WHERE n.resource = 'namespaces' AND n.namespace = '' AND n.name = i.namespace) END AS namespace_state,
		EXISTS (SELECT FROM objects o WHERE o.resource = i.resource AND o.namespace = i.namespace AND o.name = i.name) AS taken
	FROM input i
), next AS (
	SELECT c.*, nextval('resource_version') AS rv
	FROM (SELECT * FROM checks WHERE namespace_state = 'active' AND NOT taken ORDER BY ord) c
), inserted AS (
	INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body, labels, remainder, defaults_stamp)
	SELECT resource, namespace, name, NULLIF(uid, '')::uuid, rv, stored_version,
		body_at_resource_version(body, rv, slot_at, slot_cut, slot_prefix), labels::jsonb, remainder::jsonb, defaults_stamp
	FROM next ORDER BY ord
	RETURNING resource, namespace, name, resource_version, body, stored_version, remainder
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version, remainder)
	SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version, remainder FROM inserted
)
SELECT c.namespace_state, c.taken, ins.resource_version
FROM checks c LEFT JOIN next n ON n.ord = c.ord LEFT JOIN inserted ins ON ins.resource_version = n.rv
ORDER BY c.ord`

// updatesSQL is updateSQL for several objects at once: the updates of one
// batch, of distinct objects, one row each, in the order of the arrays,
// each answered as updateSQL answers: the resourceVersion read, and the
// new one when it was written. As in updateSQL, a row whose
// resourceVersion is not the expected one in the statement's snapshot
// draws none.
//
// $1 resources, $2 namespaces, $3 names, $4 expected resourceVersions,
// $5 uids, $6 stored versions, $7 bodies (JSON text), $8 labels, $9
// remainders (NULL for none), $10 defaults stamps, $11-$13 the slots of
// the bodies' resourceVersions.
const updatesSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bytea[], $8::text[],
		$9::text[], $10::bigint[], $11::integer[], $12::integer[], $13::text[])
		WITH ORDINALITY AS i(resource, namespace, name, expected, uid, stored_version, body, labels,
			remainder, defaults_stamp, slot_at, slot_cut, slot_prefix, ord)
), cur AS (
	SELECT i.ord, o.resource_version, o.stored_version, o.body, o.remainder
	FROM input i JOIN objects o ON o.resource = i.resource AND o.namespace = i.namespace AND o.name = i.name
), next AS (
	SELECT m.*, nextval('resource_version') AS rv
	FROM (SELECT i.* FROM input i JOIN cur ON cur.ord = i.ord WHERE cur.resource_version = i.expected ORDER BY i.ord) m
), updated AS (
	UPDATE objects o SET resource_version = n.rv, uid = NULLIF(n.uid, '')::uuid, stored_version = n.stored_version,
		body = body_at_resource_version(n.body, n.rv, n.slot_at, n.slot_cut, n.slot_prefix), labels = n.labels::jsonb,
		remainder = n.remainder::jsonb, defaults_stamp = n.defaults_stamp
	FROM next n
	WHERE o.resource = n.resource AND o.namespace = n.namespace AND o.name = n.name AND o.resource_version = n.expected
	RETURNING n.ord, o.resource_version, o.body
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body,
		prev_body, prev_resource_version, stored_version, prev_stored_version, remainder, prev_remainder)
	SELECT u.resource_version, n.resource, n.namespace, n.name, 'MODIFIED', u.body, cur.body, cur.resource_version,
		n.stored_version, cur.stored_version, n.remainder::jsonb, cur.remainder
	FROM updated u JOIN next n ON n.ord = u.ord JOIN cur ON cur.ord = u.ord
)
SELECT cur.resource_version, u.resource_version
FROM input i LEFT JOIN cur ON cur.ord = i.ord LEFT JOIN updated u ON u.ord = i.ord
ORDER BY i.ord`

// deletesSQL is deleteSQL for several objects at once: the deletes of one
// batch, of distinct objects, one row each, in the order of the arrays,
// each answered as deleteSQL answers (the last state only to a delete
// without a precondition).
//
// $1 resources, $2 namespaces, $3 names, $4 expected resourceVersions (0:
// any).
const deletesSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
		WITH ORDINALITY AS i(resource, namespace, name, expected, ord)
), cur AS (
	SELECT i.ord, o.resource_version
	FROM input i JOIN objects o ON o.resource = i.resource AND o.namespace = i.namespace AND o.name = i.name
), next AS (
	SELECT m.*, nextval('resource_version') AS rv
	FROM (SELECT i.* FROM input i JOIN cur ON cur.ord = i.ord
		WHERE i.expected = 0 OR cur.resource_version = i.expected ORDER BY i.ord) m
), deleted AS (
	DELETE FROM objects o USING next n
	WHERE o.resource = n.resource AND o.namespace = n.namespace AND o.name = n.name
		AND (n.expected = 0 OR o.resource_version = n.expected)
	RETURNING n.ord, n.rv, n.resource, n.namespace, n.name, o.resource_version AS prev_rv, o.stored_version,
		o.body AS prev_body, o.remainder
), event AS (
	INSERT INTO events (resource_version, resource, namespace, name, type, body,
		prev_body, prev_resource_version, stored_version, prev_stored_version, remainder, prev_remainder)
	SELECT rv, resource, namespace, name, 'DELETED', NULL, prev_body, prev_rv, stored_version, stored_version, NULL, remainder
	FROM deleted
)
SELECT cur.resource_version, d.rv, coalesce(d.stored_version, ''),
	CASE WHEN i.expected = 0 THEN d.prev_body END, CASE WHEN i.expected = 0 THEN d.remainder END
FROM input i LEFT JOIN cur ON cur.ord = i.ord LEFT JOIN deleted d ON d.ord = i.ord
ORDER BY i.ord`

// A group is one statement of a batch and the calls it answers: one call,
// or the creates, the updates or the deletes of the batch together
// (createsSQL, updatesSQL, deletesSQL).
type group struct {
	sql   string
	args  []any
	calls []*call
	err   error
}

// groupWrites returns calls, sorted, as the statements of a batch: each
// call's own, except that two or more creates go into one createsSQL, two
// or more updates into one updatesSQL and two or more deletes into one
// deletesSQL, each sent where the first of its calls would have been. Requests in one batch are concurrent, so any
// order of their statements is a valid one. Stay apart: creates of
// namespaces (a create in a namespace created by the same batch sees it
// only from a later statement), and two writes of one kind (two creates,
// two updates, two deletes) of one object: as two statements, the second sees the first and fails alone
// (AlreadyExists, Conflict) without drawing a resourceVersion, where one
// statement would fail the batch, whose resourceVersions drawn would be
// gaps that watchers wait for (and one UPDATE changes a row once).
func groupWrites(calls []*call) []*group {
	type write struct {
		sql string
		key engine.ObjectKey
	}
	writes := map[write]int{}
	for _, c := range calls {
		writes[write{c.st.sql, c.st.key}]++
	}
	// mergedSQL is the statement that may write c with others, or "".
	mergedSQL := func(c *call) string {
		if writes[write{c.st.sql, c.st.key}] > 1 {
			return ""
		}
		switch c.st.sql {
		case createSQL:
			if c.st.row.resource != "namespaces" {
				return createsSQL
			}
		case updateSQL:
			return updatesSQL
		case deleteSQL:
			return deletesSQL
		}
		return ""
	}
	count := map[string]int{}
	for _, c := range calls {
		count[mergedSQL(c)]++
	}
	merged := map[string]*group{}
	groups := make([]*group, 0, len(calls))
	for _, c := range calls {
		sql := mergedSQL(c)
		if sql == "" || count[sql] < 2 {
			groups = append(groups, &group{sql: c.st.sql, args: c.st.args, calls: []*call{c}})
			continue
		}
		g := merged[sql]
		if g == nil {
			g = &group{sql: sql}
			merged[sql] = g
			groups = append(groups, g)
		}
		g.calls = append(g.calls, c)
	}
	for sql, g := range merged {
		if sql == deletesSQL {
			g.args = deletesArgs(g.calls)
		} else {
			g.args = rowsArgs(g.calls, sql == updatesSQL)
		}
	}
	return groups
}

// deletesArgs are deletesSQL's arguments for calls, which are deletes:
// deleteSQL's, one array each.
func deletesArgs(calls []*call) []any {
	n := len(calls)
	resources, namespaces, names, expected := make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	for i, c := range calls {
		a := c.st.args
		resources[i], namespaces[i], names[i], expected[i] = a[0].(string), a[1].(string), a[2].(string), a[3].(int64)
	}
	return []any{resources, namespaces, names, expected}
}

// rowsArgs are createsSQL's arguments for calls, which are creates, or
// updatesSQL's (updates): one array per column.
func rowsArgs(calls []*call, updates bool) []any {
	n := len(calls)
	resources, namespaces, names, uids, versions := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	bodies, labels, remainders := make([][]byte, n), make([]string, n), make([]*string, n)
	stamps, expected, ats, cuts, prefixes := make([]int64, n), make([]int64, n), make([]int32, n), make([]int32, n), make([]string, n)
	for i, c := range calls {
		r := c.st.row
		resources[i], namespaces[i], names[i], uids[i], versions[i] = r.resource, r.namespace, r.name, r.uid, r.storedVersion
		bodies[i], labels[i], stamps[i], expected[i] = r.body, r.labels, r.defaultsStamp, r.expected
		if r.remainder != nil {
			s := string(r.remainder)
			remainders[i] = &s
		}
		at, cut, prefix := r.slot.args()
		ats[i], cuts[i], prefixes[i] = int32(at), int32(cut), prefix
	}
	if updates {
		return []any{resources, namespaces, names, expected, uids, versions, bodies, labels, remainders, stamps, ats, cuts, prefixes}
	}
	return []any{resources, namespaces, names, uids, versions, bodies, labels, remainders, stamps, ats, cuts, prefixes}
}

// scan reads g's answer from results: one row per call, in order.
func (g *group) scan(results pgx.BatchResults) error {
	if g.sql == g.calls[0].st.sql { // a call's own statement: one row
		return results.QueryRow().Scan(g.calls[0].st.dest...)
	}
	rows, err := results.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		if i == len(g.calls) {
			return fmt.Errorf("merged writes: more rows than the %d writes", len(g.calls))
		}
		if err := rows.Scan(g.calls[i].st.dest...); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if i != len(g.calls) {
		return fmt.Errorf("merged writes: %d rows for %d writes", i, len(g.calls))
	}
	return nil
}
