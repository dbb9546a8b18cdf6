package schema

import (
	"strconv"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// causes flattens a jsonschema error tree into one field error per problem.
// It looks up the failed keyword's value in the translated document and the
// offending value in the object, since jsonschema's own messages are not
// kube-apiserver's.
type causes struct {
	doc  gjson.Result // translated schema document
	obj  gjson.Result // the object validated
	base string       // field path of obj
	// old is the object obj replaces, for ratcheting (see
	// Schema.ValidateUpdate); it does not exist outside updates.
	old gjson.Result
	out []engine.FieldError
	// allOf counts failed allOf branches by schema and instance location:
	// kube-apiserver adds one summary per allOf on top of the branches' causes.
	allOf map[[2]string]int
	// truncated says causes were left out at MaxCauses.
	truncated bool
}

// MaxCauses bounds the causes Validate reports. Why: each cause costs a
// walk to its field, and an array of a million wrong items would cost a
// million causes and an answer of hundreds of megabytes.
const MaxCauses = 100

// full reports whether c holds MaxCauses causes: the walk stops there.
func (c *causes) full() bool { return len(c.out) >= MaxCauses }

// visit handles one node of the error tree.
func (c *causes) visit(ve *jsonschema.ValidationError) {
	if c.full() {
		c.truncated = true
		return
	}
	kw := pointerTokens(ve.AbsoluteKeywordLocation)
	last := ""
	if len(kw) > 0 {
		last = kw[len(kw)-1]
	}
	switch {
	case ve.Message == "" || ve.KeywordLocation == "": // grouping only
		c.visitAll(ve.Causes)
	case last == "anyOf" || last == "oneOf":
		c.junction(ve, last)
	case len(kw) >= 2 && kw[len(kw)-2] == "allOf":
		if c.allOf == nil {
			c.allOf = make(map[[2]string]int)
		}
		c.allOf[[2]string{strings.Join(kw[:len(kw)-1], "/"), ve.InstanceLocation}]++
		c.visitAll(ve.Causes)
	case len(ve.Causes) > 0: // the else of a nullable field's junctors
		c.visitAll(ve.Causes)
	default:
		c.leaf(ve, kw)
	}
}

func (c *causes) visitAll(list []*jsonschema.ValidationError) {
	for _, ve := range list {
		c.visit(ve)
	}
}

// junction reports a failed anyOf or oneOf as kube-apiserver does: a summary,
// then the causes of the branch that came closest (here: fewest problems).
func (c *causes) junction(ve *jsonschema.ValidationError, keyword string) {
	_, path := resolve(c.obj, ve.InstanceLocation, c.base)
	detail := strconv.Quote(path) + " must validate at least one schema (anyOf)"
	if keyword == "oneOf" {
		found := "Found none valid"
		if len(ve.Causes) == 0 {
			// jsonschema stops at the second valid branch.
			found = "Found 2 valid alternatives"
		}
		detail = strconv.Quote(path) + " must validate one and only one schema (oneOf). " + found
	}
	c.add(ve.InstanceLocation, engine.CauseInvalid, path, invalid(`""`, detail))
	if best := closest(ve); best != nil {
		c.visit(best)
	}
}

// closest picks the branch of a failed anyOf or oneOf that came closest to
// passing, as kube-apiserver reports that branch's causes: a branch whose
// type did not even match counts as farthest, then fewer problems is closer.
func closest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	var best *jsonschema.ValidationError
	bestScore := 0
	for _, branch := range ve.Causes {
		score := countLeaves(branch)
		if kw := pointerTokens(branch.AbsoluteKeywordLocation); len(kw) > 0 && kw[len(kw)-1] == "type" &&
			branch.InstanceLocation == ve.InstanceLocation {
			score += 1 << 20
		}
		if best == nil || score < bestScore {
			best, bestScore = branch, score
		}
	}
	return best
}

func countLeaves(ve *jsonschema.ValidationError) int {
	if len(ve.Causes) == 0 {
		return 1
	}
	n := 0
	for _, c := range ve.Causes {
		n += countLeaves(c)
	}
	return n
}

// finishAllOf adds the summary of every failed allOf.
func (c *causes) finishAllOf() {
	for key, failed := range c.allOf {
		_, path := resolve(c.obj, key[1], c.base)
		detail := strconv.Quote(path) + " must validate all the schemas (allOf)"
		if failed == len(lookup(c.doc, pointerTokens(key[0])).Array()) {
			detail += ". None validated"
		}
		c.add(key[1], engine.CauseInvalid, path, invalid(`""`, detail))
	}
}

// leaf reports one failed keyword; kw is never empty, as only the
// grouping errors visit skips sit at a schema's root.
func (c *causes) leaf(ve *jsonschema.ValidationError, kw []string) {
	value, path := resolve(c.obj, ve.InstanceLocation, c.base)
	keyword := kw[len(kw)-1]
	schema := lookup(c.doc, kw[:len(kw)-1])
	if keyword == "required" {
		for _, name := range schema.Get("required").Array() {
			if !value.Get(gjson.Escape(name.Str)).Exists() {
				c.add(ve.InstanceLocation, engine.CauseRequired, joinKey(path, name.Str), "Required value")
			}
		}
		return
	}
	causeType, message := describe(keyword, schema.Get(keyword), value, path)
	if message == "" {
		causeType, message = engine.CauseInvalid, invalid(badValue(value), path+" in body: "+ve.Message)
	}
	c.add(ve.InstanceLocation, causeType, path, message)
}

// add reports a problem of the value at instance location ptr (a JSON
// pointer into obj), unless ratcheting tolerates it.
func (c *causes) add(ptr, causeType, path, message string) {
	if c.unchanged(ptr) {
		return
	}
	if c.full() {
		c.truncated = true
		return
	}
	c.out = append(c.out, engine.FieldError{Type: causeType, Path: path, Message: message})
}
