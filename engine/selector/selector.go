// Package selector parses Kubernetes label and field selector strings into
// engine requirements, with k8s.io/apimachinery's parsers so that the syntax
// and the error messages are exactly kube-apiserver's.
package selector

import (
	"github.com/dynapi/dynapi/engine"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// ParseLabels parses a label selector such as "app=web,tier in (a,b),!old".
// Errors: BadRequest with the parser's message.
func ParseLabels(s string) ([]engine.Requirement, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "%v", err) // apimachinery says "unable to parse requirement: ..." itself
	}
	reqs, _ := sel.Requirements()
	out := make([]engine.Requirement, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, engine.Requirement{Key: r.Key(), Operator: labelOperator(r.Operator()), Values: r.ValuesUnsorted()})
	}
	return out, nil
}

func labelOperator(op selection.Operator) engine.Operator {
	switch op {
	case selection.Equals, selection.DoubleEquals:
		return engine.OpEquals
	case selection.NotEquals:
		return engine.OpNotEquals
	case selection.In:
		return engine.OpIn
	case selection.NotIn:
		return engine.OpNotIn
	case selection.Exists:
		return engine.OpExists
	case selection.DoesNotExist:
		return engine.OpDoesNotExist
	case selection.GreaterThan:
		return engine.OpGreaterThan
	case selection.LessThan:
		return engine.OpLessThan
	}
	return engine.Operator(op)
}

// ParseFields parses a field selector such as "metadata.name=foo,spec.color!=red".
// Errors: BadRequest with the parser's message.
func ParseFields(s string) ([]engine.FieldRequirement, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid field selector: %v", err)
	}
	reqs := sel.Requirements()
	out := make([]engine.FieldRequirement, 0, len(reqs))
	for _, r := range reqs {
		op := engine.OpEquals
		if r.Operator == selection.NotEquals {
			op = engine.OpNotEquals
		}
		out = append(out, engine.FieldRequirement{Path: r.Field, Operator: op, Value: r.Value})
	}
	return out, nil
}
