package postgres

import (
	"fmt"
	"math"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// The state at resourceVersion R, for every R up to W (every
// resourceVersion up to it is resolved), is: the objects unchanged since R
// (resource_version <= R), plus, for each key changed after R, the state
// before its first change after R (absent when that change created it).
// Rows of writes still in flight are invisible, and their objects show
// their state before them, which is the state at R: no lock is needed.
//
// A List reads both parts in one snapshot (a REPEATABLE READ transaction)
// and merges them by key: the changed part first (small: the keys written
// after R, at most a page of them), then the unchanged part, streamed in
// key order through the primary key or the GIN indexes. (One UNION ALL
// statement would be simpler, but PostgreSQL then sorts every object for a
// page instead of merging two ordered scans.) Selectors apply to both
// parts; in the changed part, after the first change of each key is picked.

// changedSQL reads the changed part, with the compaction horizon and the
// sequence's value: the m row, always there (the LEFT JOIN gives it NULL
// objects when no key changed). The first change of each key is picked on
// narrow rows, then its body is read: a sort of keys, not of bodies. {R} is the state's resourceVersion: $1, or
// the sequence's value for a latest list, which then counts in {resolved}
// the log rows in (W, seq] ($1 is W). {upper} bounds the log rows read
// from above (see primaryLatestUpper), or is empty. {rest} is the WHERE,
// ORDER BY and LIMIT.
const changedSQL = `
WITH m AS MATERIALIZED (
	SELECT c.horizon, s.seq, {resolved} AS resolved
	FROM compaction c, ({seq}) s
)
SELECT m.horizon, m.seq, m.resolved, l.* FROM m LEFT JOIN LATERAL (
	SELECT resource, namespace, name, resource_version, stored_version, {body}, {stamp} FROM (
		SELECT f.resource, f.namespace, f.name, e.type, e.prev_resource_version AS resource_version,
			e.prev_stored_version AS stored_version, e.prev_body AS body, e.prev_remainder AS remainder,
			CASE WHEN jsonb_typeof(e.prev_body -> 'metadata' -> 'labels') = 'object'
				THEN e.prev_body -> 'metadata' -> 'labels' ELSE '{}' END AS labels
		FROM (
			SELECT DISTINCT ON (namespace, name, resource) resource, namespace, name, resource_version
			FROM events WHERE resource_version > {R}{upper} AND type <> 'GAP'
			ORDER BY namespace, name, resource, resource_version
		) f CROSS JOIN LATERAL (
			SELECT type, prev_resource_version, prev_stored_version, prev_body, prev_remainder FROM events
			WHERE resource_version = f.resource_version OFFSET 0 -- a primary key lookup per key, whatever the estimates
		) e
	) first_change
	WHERE type <> 'ADDED'{rest}
) l ON true`

// sequenceSQL reads the sequence's value, for changedSQL's {seq} on the
// primary. A replica's copy of the sequence runs up to 32 values ahead of
// the primary's (PostgreSQL logs sequences in advance): there {seq} is the
// primary's value at the read's position, the statement's last argument.
const sequenceSQL = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM resource_version`

// primaryLatestUpper is {upper} for a latest list on the primary: no log
// row above the sequence's value can be in the snapshot, since every
// transaction committed before it took its resourceVersion from the
// sequence before, and the statement reads the sequence after the
// snapshot. The bound changes no result; it is there for the planner.
// Why: m.seq is unknown when the statement is planned, and PostgreSQL
// guesses that "resource_version > m.seq" keeps a third of the log, so it
// reads the whole log (sequentially) to find the rows after it. The log
// holds every write of the retention window: at 1,000 creates/s, 208,000
// rows, 536 MB, and every latest list, of any resource, took 970 ms (the
// namespace finalizer's lists alone used a core). Bounded on both sides it
// is a range of the primary key: 0.5 ms. A replica's copy of the sequence
// runs ahead of the primary's, so there rows past seq can be visible:
// unbounded.
const primaryLatestUpper = " AND resource_version <= m.seq"

// resolvedSQL counts the log rows in (W, seq], up to a bound: when it
// equals seq - W, every write up to seq is visible in the snapshot, and
// the newest state needs no wait.
const resolvedSQL = `(SELECT count(*) FROM (SELECT FROM events
	WHERE resource_version > $1 AND resource_version <= s.seq LIMIT 10000) r)`

// unchangedSQL reads the unchanged part at $1.
const unchangedSQL = `SELECT resource, namespace, name, resource_version, stored_version, {body}, {stamp}
FROM objects WHERE resource_version <= $1{rest}`

// The body columns of a list: whole bodies, or, for a metadata-only list,
// the metadata alone, cut out in the database so that the rest of each
// body never leaves it; then the defaults stamp (engine.Object), which the
// log does not keep: 0 for the changed part.
const (
	bodyColumns     = "body, remainder"
	metadataColumns = "coalesce(body -> 'metadata', '{}') AS body, NULL::jsonb AS remainder"
	stampColumn     = "coalesce(defaults_stamp, 0)"
	noStampColumn   = "0::bigint"
)

// listPlan holds the two statements of a List. Their first argument, the
// state's resourceVersion (or W for the changed part of a latest list), is
// set when they run.
type listPlan struct {
	changed, unchanged         string
	changedArgs, unchangedArgs []any
	limit                      int64 // 0: no limit
	all                        bool  // every resource: keys order by resource last
}

// buildList renders the statements reading opts' objects in the state st,
// resuming after st's continue token, if any. Keyset pagination: each page
// seeks past the last key returned. Every value is a bind parameter.
func buildList(opts engine.ListOptions, st listState) (listPlan, error) {
	changed, changedArgs, err := buildPart(opts, st.after)
	if err != nil {
		return listPlan{}, err
	}
	unchanged, unchangedArgs, _ := buildPart(opts, st.after) // the same terms: cannot fail
	resolved, r, upper := "0", "$1::bigint", ""
	if st.latest {
		resolved, r, upper = resolvedSQL, "m.seq", primaryLatestUpper
	}
	seq := sequenceSQL
	if st.primarySeq != nil {
		changedArgs = append(changedArgs, *st.primarySeq)
		seq, upper = fmt.Sprintf("SELECT $%d::bigint AS seq", len(changedArgs)), ""
	}
	body := bodyColumns
	if opts.MetadataOnly {
		body = metadataColumns
	}
	return listPlan{
		changed: strings.NewReplacer("{seq}", seq, "{resolved}", resolved, "{R}", r, "{upper}", upper,
			"{rest}", changed, "{body}", body, "{stamp}", noStampColumn).Replace(changedSQL),
		unchanged: strings.NewReplacer("{rest}", unchanged, "{body}", body, "{stamp}", stampColumn).Replace(unchangedSQL), changedArgs: changedArgs,
		unchangedArgs: unchangedArgs, limit: opts.Limit, all: opts.Resource == engine.GroupResource{},
	}, nil
}

// countSQL counts the objects of the state at $1 that a List selects after
// its continue token: both parts, without order or limit. {visible} keeps
// the unchanged part's rows at or below $1.
const countSQL = `SELECT (SELECT count(*) FROM objects WHERE {visible}{unchanged})
	+ (SELECT count(name) FROM ({changed}) c)`

// Values of countSQL's {visible}. For the newest state on the primary,
// every row of objects in the snapshot is at or below $1 (the sequence's
// value, as for primaryLatestUpper), and without the condition the count
// reads the primary key alone. Why: the first page of a paged list counts
// what follows it (remainingItemCount), and at 400,000 objects the
// condition made that a scan of the whole heap (1.45 s) instead of an
// index-only scan of the primary key (0.81 s, with a visibility map that
// autovacuum had not caught up with; less once it has).
const (
	visibleAt     = "resource_version <= $1::bigint"
	visibleNewest = "true"
)

// buildCount renders countSQL for opts after the key after (nil: from the
// first), at the newest state on the primary if newest. Its arguments
// follow $1, the state's resourceVersion: the two parts' terms are the
// same, so their arguments are too.
func buildCount(opts engine.ListOptions, after *continueToken, newest bool) (string, []any, error) {
	rest, args, err := buildTerms(opts, after, false)
	if err != nil {
		return "", nil, err
	}
	changed := strings.NewReplacer("{seq}", sequenceSQL, "{resolved}", "0", "{R}", "$1::bigint", "{upper}", "", "{rest}", rest,
		"{body}", "NULL AS body, NULL AS remainder", "{stamp}", noStampColumn).Replace(changedSQL)
	changed = strings.Replace(changed, "SELECT m.horizon, m.seq, m.resolved, l.* FROM", "SELECT l.name FROM", 1)
	visible := visibleAt
	if newest {
		visible = visibleNewest
	}
	return strings.NewReplacer("{visible}", visible, "{unchanged}", rest, "{changed}", changed).Replace(countSQL), args, nil
}

// buildPart renders the conditions (after the part's own), order and limit
// of one part, and their arguments, which follow $1.
func buildPart(opts engine.ListOptions, after *continueToken) (string, []any, error) {
	return buildTerms(opts, after, true)
}

// buildTerms is buildPart, without the order and limit unless ordered.
func buildTerms(opts engine.ListOptions, after *continueToken, ordered bool) (string, []any, error) {
	q := &listQuery{args: []any{nil}}
	all := opts.Resource == engine.GroupResource{}
	if !all {
		q.where = append(q.where, "resource = "+q.arg(resourceColumn(opts.Resource)))
	}
	if opts.Namespace != "" {
		q.where = append(q.where, "namespace = "+q.arg(opts.Namespace))
	}
	if err := q.addSelectors(opts); err != nil {
		return "", nil, err
	}
	order := " ORDER BY namespace, name" // the primary key's order after resource
	if all {
		order += ", resource"
	}
	if after != nil {
		q.where = append(q.where, q.after(*after, all, opts.Namespace))
	}
	rest := ""
	if len(q.where) > 0 {
		rest = " AND " + strings.Join(q.where, " AND ")
	}
	if !ordered {
		return rest, q.args, nil
	}
	rest += order
	if opts.Limit > 0 {
		rest += " LIMIT " + q.arg(min(opts.Limit, math.MaxInt64-1)+1)
	}
	return rest, q.args, nil
}

// after is the condition of the keys after a continue token's. Within
// the token's namespace it compares the name (and resource) only. Why:
// beside namespace = $n, PostgreSQL does not start the index scan at a
// row comparison that begins with namespace, but reads the namespace from
// its first key and filters, so the 100th page of 500 read 50,000 keys to
// skip them (5 ms instead of 0.7).
func (q *listQuery) after(t continueToken, all bool, namespace string) string {
	cols, vals := []string{"namespace", "name"}, []string{t.Namespace, t.Name}
	if namespace != "" && namespace == t.Namespace {
		cols, vals = cols[1:], vals[1:]
	}
	if all {
		cols, vals = append(cols, "resource"), append(vals, t.Resource)
	}
	params := make([]string, len(vals))
	for i, v := range vals {
		params[i] = q.arg(v) + "::text"
	}
	return "(" + strings.Join(cols, ", ") + ") > (" + strings.Join(params, ", ") + ")"
}

// addSelectors adds the label, field and body field requirements of opts.
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
	for _, f := range opts.BodyFields {
		if err := q.addBodyField(f, opts.BodyFieldsVersion); err != nil {
			return err
		}
	}
	return nil
}
