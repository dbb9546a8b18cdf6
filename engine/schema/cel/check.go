package cel

import (
	"errors"
	"fmt"
	"math"
	"strings"

	structural "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Kubernetes' static cost limits (apiextensions validation): per
// expression, and the total of every rule of one schema.
const (
	expressionCostLimit = 10_000_000
	schemaCostLimit     = 100_000_000
)

// checker walks a structural schema as kube-apiserver validates a
// CustomResourceDefinition's rules: each rule compiles, its messageExpression
// too, its estimated cost times the number of times it may run stays under
// the limits, oldSelf is only used where old and new values correlate, and
// fieldPath names a field.
type checker struct {
	env      *environment.EnvSet
	problems []string
	total    uint64
}

// node is one schema visited: where it is, and what its ancestors say.
type node struct {
	s    *structural.Structural
	path string
	root bool // the resource root or an embedded resource
	// cardinality is how many times the node may occur in one object
	// (nil: no bound); uncorrelated names the ancestor below which old and
	// new values cannot be matched ("": none).
	cardinality  *uint64
	uncorrelated string
}

// check returns the problems of every rule of s.
func check(s *structural.Structural) []string {
	c := &checker{env: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	one := uint64(1)
	c.visit(node{s: s, root: true, cardinality: &one})
	if c.total > schemaCostLimit {
		c.problemf("", "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema %s", exceeds(c.total, schemaCostLimit))
	}
	return c.problems
}

func (c *checker) problemf(path, format string, args ...any) {
	if path == "" {
		path = "openAPIV3Schema"
	}
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// visit checks n's rules, then its children's.
func (c *checker) visit(n node) {
	if len(n.s.XValidations) > 0 {
		c.rules(n)
	}
	for name, p := range n.s.Properties {
		child := n.child(&p, join(n.path, "properties."+name))
		if n.s.XMapType != nil && *n.s.XMapType == "atomic" && child.uncorrelated == "" {
			child.uncorrelated = n.path
		}
		c.visit(child)
	}
	if n.s.Items != nil {
		child := n.child(n.s.Items, join(n.path, "items"))
		if (n.s.XListType == nil || *n.s.XListType != "map") && child.uncorrelated == "" {
			child.uncorrelated = n.path
		}
		c.visit(child)
	}
	if ap := n.s.AdditionalProperties; ap != nil && ap.Structural != nil {
		c.visit(n.child(ap.Structural, join(n.path, "additionalProperties")))
	}
}

// child is the node of s, a schema directly below n.
func (n node) child(s *structural.Structural, path string) node {
	return node{s: s, path: path, root: s.XEmbeddedResource, cardinality: times(n.cardinality, maxElements(n.s)), uncorrelated: n.uncorrelated}
}

// rules compiles the rules of n and checks each result.
func (c *checker) rules(n node) {
	decl := model.SchemaDeclType(n.s, n.root)
	results, err := apiextensionscel.Compile(n.s, decl, celconfig.PerCallLimit, c.env, apiextensionscel.NewExpressionsEnvLoader())
	if err != nil {
		c.problemf(join(n.path, "x-kubernetes-validations"), "%v", err)
		return
	}
	for i, r := range results {
		c.result(n, i, r)
	}
}

// result checks the compilation of rule i of n.
func (c *checker) result(n node, i int, r apiextensionscel.CompilationResult) {
	rule := n.s.XValidations[i]
	at := fmt.Sprintf("%s[%d]", join(n.path, "x-kubernetes-validations"), i)
	cost := r.MaxCost
	if n.cardinality != nil {
		cost = multiply(cost, *n.cardinality)
	} else {
		cost = multiply(cost, r.MaxCardinality)
	}
	c.total = add(c.total, cost)
	if cost > expressionCostLimit {
		c.problemf(at+".rule", "Forbidden: estimated rule cost %s", exceeds(cost, expressionCostLimit))
	}
	if r.Error != nil {
		c.problemf(at+".rule", "%s: %s", quoteRule(rule.Rule), compileMessage(r.Error))
	}
	if r.MessageExpressionError != nil {
		c.problemf(at+".messageExpression", "%s: %s", quoteRule(rule.MessageExpression), compileMessage(r.MessageExpressionError))
	} else if r.MessageExpression != nil {
		c.total = add(c.total, r.MessageExpressionMaxCost)
		if r.MessageExpressionMaxCost > expressionCostLimit {
			c.problemf(at+".messageExpression", "Forbidden: estimated messageExpression cost %s", exceeds(r.MessageExpressionMaxCost, expressionCostLimit))
		}
	}
	switch {
	case r.UsesOldSelf && n.uncorrelated != "":
		c.problemf(at+".rule", "%s: oldSelf cannot be used on the uncorrelatable portion of the schema within %s", quoteRule(rule.Rule), n.uncorrelated)
	case !r.UsesOldSelf && rule.OptionalOldSelf != nil:
		c.problemf(at+".optionalOldSelf", "may not be set if oldSelf is not used in rule")
	}
	if rule.FieldPath != "" {
		if _, _, err := apiextensionscel.ValidFieldPath(rule.FieldPath, n.s); err != nil {
			c.problemf(at+".fieldPath", "%q: must be a valid path: %v", rule.FieldPath, err)
		}
	}
	if rule.Reason != nil && !validReasons[string(*rule.Reason)] {
		c.problemf(at+".reason", "Unsupported value: %q: supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"", *rule.Reason)
	}
}

var validReasons = map[string]bool{"FieldValueRequired": true, "FieldValueDuplicate": true, "FieldValueInvalid": true, "FieldValueForbidden": true}

// compileMessage is the compiler's message, on one line.
func compileMessage(e *apiservercel.Error) string {
	return strings.Join(strings.Fields(e.Detail), " ")
}

// quoteRule quotes an expression for a message, on one line.
func quoteRule(rule string) string {
	return fmt.Sprintf("%q", strings.Join(strings.Fields(rule), " "))
}

// maxElements is how many children each occurrence of s may have, as
// kube-apiserver bounds rule cost: maxItems, maxProperties for maps, 1 for
// an object's fields; nil when there is no bound.
func maxElements(s *structural.Structural) *uint64 {
	one := uint64(1)
	vv := s.ValueValidation
	if vv == nil {
		vv = &structural.ValueValidation{}
	}
	var bound *int64
	switch {
	case s.Type == "array":
		bound = vv.MaxItems
	case s.Type == "object" && s.AdditionalProperties != nil:
		bound = vv.MaxProperties
	default:
		return &one
	}
	if bound == nil {
		return nil
	}
	n := uint64(max(*bound, 0))
	return &n
}

func times(a, b *uint64) *uint64 {
	if a == nil || b == nil {
		return nil
	}
	n := multiply(*a, *b)
	return &n
}

func multiply(a, b uint64) uint64 {
	if a != 0 && math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

func add(a, b uint64) uint64 {
	if math.MaxUint64-a < b {
		return math.MaxUint64
	}
	return a + b
}

// exceeds phrases how far cost is over limit, in kube-apiserver's words.
func exceeds(cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	factor := fmt.Sprintf("%.1fx", f)
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	}
	return "exceeds budget by factor of " + factor + " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// problemsError joins problems into one error, one per line.
func problemsError(problems []string) error {
	return errors.New(strings.Join(problems, "\n"))
}
