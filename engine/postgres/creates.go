package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5"
)

// createsSQL is createSQL for several objects at once: the creates of one
// batch, one row each, in the order of the arrays. Each row gets what
// createSQL gives a create: the state of its namespace, whether its name
// was taken, and its resourceVersion when it was written. The checks read
// the statement's snapshot, so a name taken twice within the statement
// (two creates of one name in one batch), or by a create that committed
// meanwhile, fails it on the primary key: the batch is rolled back and
// each create runs alone, where the second finds the name taken without
// drawing a resourceVersion (a resourceVersion drawn and left unused is a
// gap that watchers wait for).
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

// A group is one statement of a batch and the calls it answers: one call,
// or the creates of the batch together (createsSQL).
type group struct {
	sql   string
	args  []any
	calls []*call
	err   error
}

// groupCreates returns calls, sorted, as the statements of a batch: each
// call's own, except that two or more creates go into one createsSQL,
// sent where the first of them would have been. Creates of namespaces
// stay apart: a create in a namespace created by the same batch sees it
// only from a later statement.
func groupCreates(calls []*call) []*group {
	var creates *group
	merge := countMergeable(calls) > 1
	groups := make([]*group, 0, len(calls))
	for _, c := range calls {
		if merge && mergeable(c) {
			if creates == nil {
				creates = &group{sql: createsSQL}
				groups = append(groups, creates)
			}
			creates.calls = append(creates.calls, c)
			continue
		}
		groups = append(groups, &group{sql: c.st.sql, args: c.st.args, calls: []*call{c}})
	}
	if creates != nil {
		creates.args = createsArgs(creates.calls)
	}
	return groups
}

// mergeable reports whether c is a create that groupCreates may merge.
func mergeable(c *call) bool {
	return c.st.create != nil && c.st.create.resource != "namespaces"
}

// countMergeable counts the calls that mergeable allows.
func countMergeable(calls []*call) int {
	n := 0
	for _, c := range calls {
		if mergeable(c) {
			n++
		}
	}
	return n
}

// createsArgs are createsSQL's arguments for calls, which are creates.
func createsArgs(calls []*call) []any {
	n := len(calls)
	resources, namespaces, names, uids, versions := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	bodies, labels, remainders := make([][]byte, n), make([]string, n), make([]*string, n)
	stamps, ats, cuts, prefixes := make([]int64, n), make([]int32, n), make([]int32, n), make([]string, n)
	for i, c := range calls {
		r := c.st.create
		resources[i], namespaces[i], names[i], uids[i], versions[i] = r.resource, r.namespace, r.name, r.uid, r.storedVersion
		bodies[i], labels[i], stamps[i] = r.body, r.labels, r.defaultsStamp
		if r.remainder != nil {
			s := string(r.remainder)
			remainders[i] = &s
		}
		at, cut, prefix := r.slot.args()
		ats[i], cuts[i], prefixes[i] = int32(at), int32(cut), prefix
	}
	return []any{resources, namespaces, names, uids, versions, bodies, labels, remainders, stamps, ats, cuts, prefixes}
}

// scan reads g's answer from results: one row per call, in order.
func (g *group) scan(results pgx.BatchResults) error {
	if g.sql != createsSQL {
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
			return fmt.Errorf("creates: more rows than the %d creates", len(g.calls))
		}
		if err := rows.Scan(g.calls[i].st.dest...); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if i != len(g.calls) {
		return fmt.Errorf("creates: %d rows for %d creates", i, len(g.calls))
	}
	return nil
}
