package selector

import (
	"slices"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// MatchLabels reports whether the labels of obj (JSON) satisfy every
// requirement, with Kubernetes' semantics: != and notin also match objects
// without the key.
func MatchLabels(reqs []engine.Requirement, obj []byte) bool {
	if len(reqs) == 0 {
		return true
	}
	labels := gjson.GetBytes(obj, "metadata.labels")
	for _, r := range reqs {
		v := labels.Get(gjson.Escape(r.Key))
		if !matchOne(r.Operator, v.Exists(), v.String(), r.Values) {
			return false
		}
	}
	return true
}

// MatchFields reports whether obj satisfies every field requirement. path
// maps a requirement's field to a gjson path in obj; fields are compared as
// strings, as Kubernetes' field selectors do.
func MatchFields(reqs []engine.FieldRequirement, obj []byte, path func(field string) string) bool {
	for _, r := range reqs {
		v := gjson.GetBytes(obj, path(r.Path))
		if !matchOne(r.Operator, true, v.String(), []string{r.Value}) {
			return false
		}
	}
	return true
}

func matchOne(op engine.Operator, exists bool, value string, values []string) bool {
	switch op {
	case engine.OpEquals, engine.OpIn:
		return exists && slices.Contains(values, value)
	case engine.OpNotEquals, engine.OpNotIn:
		return !exists || !slices.Contains(values, value)
	case engine.OpExists:
		return exists
	case engine.OpDoesNotExist:
		return !exists
	case engine.OpGreaterThan, engine.OpLessThan:
		return exists && len(values) == 1 && compareInts(op, value, values[0])
	}
	return false
}

// compareInts compares a label value with a requirement's as integers, as
// labels.Requirement.Matches does: a value that is not an int64 matches
// nothing.
func compareInts(op engine.Operator, value, limit string) bool {
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	l, err := strconv.ParseInt(limit, 10, 64)
	if err != nil {
		return false
	}
	if op == engine.OpGreaterThan {
		return v > l
	}
	return v < l
}
