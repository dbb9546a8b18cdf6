package postgres

import (
	"encoding/json"
	"strconv"

	"github.com/dynapi/dynapi/engine"
)

// listQuery builds a List statement; every value is a bind parameter.
type listQuery struct {
	where []string
	args  []any
}

// arg binds v and returns its placeholder.
func (q *listQuery) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// fieldColumns maps the field selector paths every resource supports to columns.
var fieldColumns = map[string]string{"metadata.name": "name", "metadata.namespace": "namespace"}

// addField adds one field requirement. Errors: BadRequest for other paths or operators.
func (q *listQuery) addField(f engine.FieldRequirement) error {
	col, ok := fieldColumns[f.Path]
	if !ok {
		return engine.Errorf(engine.CodeBadRequest, "field label not supported: %s", f.Path)
	}
	switch f.Operator {
	case engine.OpEquals:
		q.where = append(q.where, col+" = "+q.arg(f.Value))
	case engine.OpNotEquals:
		q.where = append(q.where, col+" <> "+q.arg(f.Value))
	default:
		return engine.Errorf(engine.CodeBadRequest, "operator %q not supported for field selectors", f.Operator)
	}
	return nil
}

// addLabel adds one label requirement, written with the operators the GIN
// indexes serve: labels @> for values, label_keys(labels) @> for keys. As
// in Kubernetes, != and notin also match objects without the label.
// Errors: BadRequest for a malformed requirement.
func (q *listQuery) addLabel(r engine.Requirement) error {
	var cond string
	switch r.Operator {
	case engine.OpEquals, engine.OpNotEquals:
		if len(r.Values) != 1 {
			return engine.Errorf(engine.CodeBadRequest, "label selector %q %s: exactly one value required", r.Key, r.Operator)
		}
		cond = "labels @> " + q.arg(labelsJSON(r.Key, r.Values[0])) + "::jsonb"
	case engine.OpIn, engine.OpNotIn:
		cond = q.labelIn(r.Key, r.Values)
	case engine.OpExists, engine.OpDoesNotExist:
		cond = "label_keys(labels) @> jsonb_build_array(" + q.arg(r.Key) + "::text)"
	case engine.OpGreaterThan, engine.OpLessThan:
		var limit int64
		var err error
		if len(r.Values) == 1 {
			limit, err = strconv.ParseInt(r.Values[0], 10, 64)
		}
		if len(r.Values) != 1 || err != nil {
			return engine.Errorf(engine.CodeBadRequest, "label selector %q %s: exactly one integer value required", r.Key, r.Operator)
		}
		cond = intLabelCompare(q.arg(r.Key), map[engine.Operator]string{engine.OpGreaterThan: ">", engine.OpLessThan: "<"}[r.Operator], q.arg(limit))
	default:
		return engine.Errorf(engine.CodeBadRequest, "label selector %q: unknown operator %q", r.Key, r.Operator)
	}
	if r.Operator == engine.OpNotEquals || r.Operator == engine.OpNotIn || r.Operator == engine.OpDoesNotExist {
		cond = "NOT (" + cond + ")"
	}
	q.where = append(q.where, cond)
	return nil
}

// maxIndexedInValues is the most values of an in or notin requirement
// looked up one by one in the GIN index of labels. Why a bound: each value
// is a scan of the index, and each row found is rechecked against every
// value (@> ANY is a loop, never a hash), so 50,000 values took seconds at
// 20k objects and a notin of them longer than the request timeout at 100k.
// More values are compared as text against a hashed array instead (see
// labelIn), at a constant cost per row.
const maxIndexedInValues = 100

// labelIn is the condition "label key's value is one of values". Up to
// maxIndexedInValues, one containment per value, which the GIN index of
// labels serves value by value: the fast form for a selective selector.
// Above, the objects having the key (from the GIN index of label_keys)
// have their value compared with values: PostgreSQL hashes a constant
// array for = ANY (the list statements are planned with their values), so
// the cost is one hash of the values plus one probe per row. The key test
// makes the condition false, not NULL, for an object without the key, so
// that its NOT (notin) matches it, as in Kubernetes.
func (q *listQuery) labelIn(key string, values []string) string {
	if len(values) > maxIndexedInValues {
		k := q.arg(key) + "::text"
		return "(label_keys(labels) @> jsonb_build_array(" + k + ") AND labels ->> " + k + " = ANY(" +
			q.arg(values) + "::text[]))"
	}
	pairs := make([]string, len(values))
	for i, v := range values {
		pairs[i] = labelsJSON(key, v)
	}
	return "labels @> ANY(" + q.arg(pairs) + "::jsonb[])"
}

// intLabelCompare compares the value of label key with limit as integers,
// as labels.Requirement.Matches does: a value that is not an int64 (what
// strconv.ParseInt reads: a sign, then digits) matches nothing. The CASE
// casts only what the pattern let through, as PostgreSQL may evaluate an
// AND's operands in any order. No index serves it: GIN indexes hold
// labels as strings.
func intLabelCompare(key, op, limit string) string {
	v := "(labels->>" + key + "::text)"
	return "CASE WHEN " + v + " ~ '^[+-]?[0-9]+$' THEN " + v + "::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 AND " +
		v + "::numeric " + op + " " + limit + "::bigint ELSE false END"
}

// labelsJSON renders the one-label object {"key": "value"}.
func labelsJSON(key, value string) string {
	data, _ := json.Marshal(map[string]string{key: value}) // strings only: cannot fail
	return string(data)
}
