package postgres

import (
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// fieldTextSQL is the text of a body field that a field selector compares,
// {path} being a text[] path: the field's text as the resource layer's
// matcher sees it (gjson's String of the body PostgreSQL returns). #>>
// gives that for strings and booleans ("red", "true"); a number is
// written without trailing fractional zeros ("3", not "3.0": jsonb keeps
// the scale written, gjson does not). The expression indexes are built
// on the same text (see EnsureFieldIndexes), and a list's condition
// matches them only in a custom plan (see listTxOptions).
const fieldTextSQL = `(CASE WHEN jsonb_typeof(body #> {path}) = 'number' ` +
	`THEN trim_scale((body #> {path})::numeric)::text ELSE body #>> {path} END)`

// fieldText renders fieldTextSQL at path, an SQL text[] expression.
func fieldText(path string) string {
	return strings.ReplaceAll(fieldTextSQL, "{path}", path)
}

// addBodyField adds one requirement on a stored body's field. As the
// matcher, a missing or null field has the text "": "=" on "" matches it,
// "!=" on anything else too. With version set, rows stored in another
// version pass (their field may be elsewhere). Every value is a bind
// parameter. Errors: BadRequest for an empty path or another operator.
func (q *listQuery) addBodyField(f engine.FieldRequirement, version string) error {
	if f.Path == "" {
		return engine.Errorf(engine.CodeBadRequest, "field selector: empty body path")
	}
	text := fieldText(q.arg(strings.Split(f.Path, ".")) + "::text[]")
	var cond string
	switch {
	case f.Operator == engine.OpEquals && f.Value == "":
		cond = text + " IS NULL OR " + text + " = ''"
	case f.Operator == engine.OpEquals:
		cond = text + " = " + q.arg(f.Value)
	case f.Operator == engine.OpNotEquals && f.Value == "":
		cond = text + " <> ''"
	case f.Operator == engine.OpNotEquals:
		cond = text + " IS DISTINCT FROM " + q.arg(f.Value)
	default:
		return engine.Errorf(engine.CodeBadRequest, "operator %q not supported for field selectors", f.Operator)
	}
	if version != "" {
		cond = "stored_version <> " + q.arg(version) + " OR " + cond
	}
	q.where = append(q.where, "("+cond+")")
	return nil
}
