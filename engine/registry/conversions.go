package registry

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine/convert"
)

// loadConversions reads every rules file of conversions, checks each
// against its kind's schemas, and attaches the rules to the kind. A kind
// whose rules are refused is refused too: served without them, it would
// answer in the wrong shape.
func (l *loader) loadConversions(conversions fs.FS) {
	files, problems := definitionFiles(conversions)
	for _, p := range problems {
		l.ruleProblem(Problem{File: p.File, Reason: p.Reason})
	}
	for _, f := range files {
		src, err := fs.ReadFile(conversions, f)
		if err != nil {
			l.ruleProblem(Problem{File: f, Reason: err.Error()})
			continue
		}
		l.loadRulesFile(f, src)
	}
}

// loadRulesFile loads every document of one rules file.
func (l *loader) loadRulesFile(file string, src []byte) {
	var docs []document
	for _, c := range splitDocuments(src) {
		out, empty, line, err := toJSON(c, path.Ext(file) == ".json")
		switch {
		case err != nil:
			l.ruleProblem(Problem{File: file, Line: line, Reason: err.Error()})
			l.refuseNamedAfter(file)
		case !empty:
			docs = append(docs, document{file: file, line: c.line, src: c.src, json: out})
		}
	}
	for _, d := range docs {
		d.multi = len(docs) > 1
		l.loadRules(d)
	}
}

// refuseNamedAfter refuses the kind a rules file too broken to read is
// named after, as conversions/<group>/<kind in lower case>.yaml: it may
// well have been that kind's rules.
func (l *loader) refuseNamedAfter(file string) {
	name := strings.TrimSuffix(path.Base(file), path.Ext(file))
	for _, r := range l.resources {
		if r.Conversion == nil && path.Dir(file) == cmp.Or(r.Group, "core") && name == strings.ToLower(r.Kind) {
			l.refuse(r, file)
			return
		}
	}
}

// loadRules parses, checks and attaches one kind's rules.
func (l *loader) loadRules(d document) {
	var head struct {
		Group string `json:"group"`
		Kind  string `json:"kind"`
	}
	_ = json.Unmarshal(d.json, &head) // a file too broken to name its kind is reported by Parse
	name := definitionName(&native{Group: head.Group, Kind: head.Kind})
	r := l.resourceOf(head.Group, head.Kind)
	rules, parseErr := convert.Parse(d.json)
	var more error
	switch {
	case rules == nil: // too broken to check further
	case r == nil:
		more = errors.New("no such kind is loaded (it is not defined, or its definition was refused)")
	case r.Conversion != nil:
		more = errors.New("the kind's rules are already given in " + r.ConversionFile)
	default:
		// Bind even rules Parse found problems in: the user sees them all.
		rules, more = rules.Bind(shapes(r))
	}
	if parseErr != nil || more != nil {
		l.refuseRules(d, name, r, parseErr, more)
		return
	}
	r.Conversion, r.ConversionFile = rules, d.file
}

// refuseRules reports every problem of a rules document and refuses its
// kind, when known.
func (l *loader) refuseRules(d document, name string, r *Resource, errs ...error) {
	for _, err := range errs {
		var ps convert.Problems
		if err != nil && !errors.As(err, &ps) {
			ps = convert.Problems{{Reason: err.Error()}}
		}
		for _, p := range ps {
			l.ruleProblem(rulesProblem(d, name, p.String()))
		}
	}
	if r != nil && r.Conversion == nil {
		l.refuse(r, d.file)
	}
}

// refuse removes a kind whose rules file was refused.
func (l *loader) refuse(r *Resource, file string) {
	l.resources = slices.DeleteFunc(l.resources, func(x *Resource) bool { return x == r })
	l.problems = append(l.problems, Problem{File: r.File, Reason: fmt.Sprintf(
		"%s: refused: its conversion rules in %s were refused", definitionName(&native{Group: r.Group, Kind: r.Kind}), file)})
}

func rulesProblem(d document, name, reason string) Problem {
	p := d.problem(name + ": " + reason)
	p.Conversion = true
	return p
}

func (l *loader) ruleProblem(p Problem) {
	p.Conversion = true
	l.problems = append(l.problems, p)
}

// resourceOf finds a loaded kind.
func (l *loader) resourceOf(group, kind string) *Resource {
	for _, r := range l.resources {
		if r.Group == group && r.Kind == kind {
			return r
		}
	}
	return nil
}
