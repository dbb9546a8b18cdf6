package registry

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	if _, err := fs.Stat(conversions, "."); errors.Is(err, fs.ErrNotExist) {
		// No folder is no rules, as serve starts before its folder is made.
		// A kind whose rules were in it is refused all the same.
		l.ruleProblem(Problem{File: ".", Reason: "no such folder: no conversion rules are loaded", Warning: true})
		l.refuseRulesLost([]string{"."})
		return
	}
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
	l.refuseRulesLost(walkFailures(problems))
}

// loadAPIConversions loads the rules created through the API, after every
// rules file: a file's rules for the same kind win, as definition files
// win over definitions created through the API, and the document is then
// reported (a warning) rather than refused.
func (l *loader) loadAPIConversions() {
	for _, name := range slices.Sorted(maps.Keys(l.opts.APIConversions)) {
		d := document{file: APIRulesPrefix + name, json: l.opts.APIConversions[name]}
		if r := l.resourceOfRules(d.json); r != nil && r.ConversionFile != "" && !IsAPIFile(r.ConversionFile) {
			w := rulesProblem(d, nameOf(r), RulesOverridden+" "+r.ConversionFile+", which wins")
			w.Warning = true
			l.report(w)
			continue
		}
		l.loadRules(d)
	}
}

// RulesOverridden starts the reason of the warning on rules created through
// the API for a kind whose rules a file gives.
const RulesOverridden = "not applied: the kind's rules are given in the rules file"

// refuseRulesLost refuses the kinds, now without rules, whose previous
// rules file lies in a folder that could not be read (an unmounted
// volume, a folder being replaced): they would answer in the wrong shape.
func (l *loader) refuseRulesLost(unreadable []string) {
	for _, r := range slices.Clone(l.resources) {
		p, ok := l.prev.byResource[r.GroupResource()]
		if ok && !l.kept[r] && r.Conversion == nil && p.ConversionFile != "" && inAny(p.ConversionFile, unreadable) {
			l.refuse(r, "the folder of its conversion rules "+p.ConversionFile+" cannot be read")
		}
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
		if r.Conversion == nil && !l.kept[r] && path.Dir(file) == cmp.Or(r.Group, "core") && name == strings.ToLower(r.Kind) {
			l.refuse(r, rulesRefused(file))
			return
		}
	}
}

// loadRules parses, checks and attaches one kind's rules.
func (l *loader) loadRules(d document) {
	head := headOf(d.json)
	name := definitionName(&native{Group: head.Group, Kind: head.Kind})
	r := l.resourceOf(head.Group, head.Kind)
	rules, parseErr := convert.Parse(d.json)
	var more error
	switch {
	case rules == nil: // too broken to check further
	case r == nil:
		// A warning, not a problem: the folder may hold the rules of kinds
		// another schemas folder defines, and a refused definition is a
		// problem of its own file. What is wrong in the rules is a problem.
		w := rulesProblem(d, name, "no such kind is loaded (it is not defined, or its definition was refused): the rules are ignored")
		w.Warning = true
		l.report(w)
		if parseErr != nil {
			l.refuseRules(d, name, nil, parseErr)
		}
		return
	case l.kept[r]:
		if parseErr == nil && d.file == r.ConversionFile {
			return // the kind serves on as it was, with these rules as they were
		}
		more = fmt.Errorf("not applied: the kind's definition in %s was refused, and its previous definition serves on with its previous rules", r.File)
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
	r.Conversion, r.ConversionFile, r.rulesJSON = rules, d.file, d.json
	if r.Webhook != nil {
		r.Unenforced = append(slices.Clip(r.Unenforced), webhookNotCalled(d.file))
	}
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
	if r != nil && r.Conversion == nil && !l.kept[r] {
		l.refuse(r, rulesRefused(d.file))
	}
}

func rulesRefused(file string) string {
	return fmt.Sprintf("its conversion rules in %s were refused", file)
}

// refuse removes a loaded kind and reports why on its definition file. The
// previous definition from that file, if any, serves on in its place.
func (l *loader) refuse(r *Resource, reason string) {
	if IsBuiltinFile(r.File) {
		// Rules that do not fit a built-in kind are refused alone (and
		// reported on their file): a conversions folder cannot take
		// namespaces down.
		return
	}
	l.resources = slices.DeleteFunc(l.resources, func(x *Resource) bool { return x == r })
	l.names.remove(r)
	l.report(Problem{File: r.File, Reason: nameOf(r) + ": refused: " + reason})
	if p, ok := l.prev.byResource[r.GroupResource()]; ok && p.File == r.File {
		l.keepPrevious(p)
	}
}

func rulesProblem(d document, name, reason string) Problem {
	p := d.problem(name + ": " + reason)
	p.Conversion = true
	return p
}

func (l *loader) ruleProblem(p Problem) {
	p.Conversion = true
	l.report(p)
}

// rulesHead is what names a rules document's kind.
type rulesHead struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// headOf reads a rules document's kind; a document too broken to name it
// is reported by Parse.
func headOf(doc []byte) rulesHead {
	var head rulesHead
	_ = json.Unmarshal(doc, &head)
	return head
}

// resourceOfRules finds the loaded kind a rules document names.
func (l *loader) resourceOfRules(doc []byte) *Resource {
	head := headOf(doc)
	return l.resourceOf(head.Group, head.Kind)
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

// WithRules returns a copy of r converted by doc, a rules document (JSON),
// parsed, checked and bound exactly as a load attaches the rules of file,
// in place of any r has: the problems are that load's (those of file), and
// the copy is nil when there are any. The copy is for checking rules
// before they are stored (see package prove), not for serving.
func (r *Resource) WithRules(file string, doc []byte) (*Resource, []Problem) {
	c := r.fresh()
	c.Conversion, c.ConversionFile, c.rulesJSON = nil, "", nil
	l := newLoader(nil, LoadOptions{})
	l.resources = []*Resource{c}
	l.loadRules(document{file: file, json: doc})
	var problems []Problem
	for _, p := range l.problems {
		if p.File == file {
			problems = append(problems, p)
		}
	}
	if len(l.problems) > 0 {
		return nil, problems
	}
	return c, nil
}
