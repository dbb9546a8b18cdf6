package registry

import "strings"

// candidate is a definition built from a document, its names not yet claimed.
type candidate struct {
	res  *Resource
	doc  document
	name string // definitionName, to start its problems
}

// claimAll registers the names of the candidates, and of the previous
// resources of refused files, in precedence order: the Reviews, then
// built-in definitions (see claimBuiltins), then definitions files
// before those created through the API; within each, what served before
// (a candidate the previous snapshot served from the same file, then the
// previous resources of refused files) before what is new, in file order.
// So a new file can never take a name from a definition that serves, and
// without a previous snapshot the first file in path order wins, as Load
// promises.
func (l *loader) claimAll() {
	l.claimReviews()
	l.claimBuiltins()
	for _, api := range []bool{false, true} {
		for _, c := range l.candidates {
			if IsAPIFile(c.res.File) == api && !IsBuiltinFile(c.res.File) && l.servedBefore(c.res) {
				l.claim(c)
			}
		}
		l.keepRefused(api)
		for _, c := range l.candidates {
			if IsAPIFile(c.res.File) == api && !IsBuiltinFile(c.res.File) && !l.servedBefore(c.res) {
				l.claim(c)
			}
		}
	}
	// Claims refuse files too: a definition that changed its names into
	// another's leaves its previous self serving.
	l.keepRefused(false)
	l.keepRefused(true)
}

// servedBefore reports whether the previous snapshot served r's resource
// from the same file.
func (l *loader) servedBefore(r *Resource) bool {
	p, ok := l.prev.byResource[r.GroupResource()]
	return ok && p.File == r.File
}

// claim registers a candidate's names, or reports why it cannot have them.
func (l *loader) claim(c candidate) {
	reasons := l.names.add(c.res)
	for _, reason := range reasons {
		l.report(c.doc.problem(c.name + ": " + reason))
	}
	if len(reasons) == 0 {
		l.resources = append(l.resources, c.res)
	}
}

// keepRefused keeps the previous resources of every refused file (or API
// definition, when api is true) that nothing else took the place of.
func (l *loader) keepRefused(api bool) {
	for _, p := range l.prev.resources {
		if IsAPIFile(p.File) == api && l.isRefused(p.File) {
			l.keepPrevious(p)
		}
	}
}

// isRefused reports whether a definition file had a problem or lies in a
// folder that could not be read.
func (l *loader) isRefused(file string) bool {
	return l.refused[file] || inAny(file, l.unreadable)
}

// keepPrevious puts a resource of the previous snapshot back, unless its
// resource is already loaded or its names are now taken. It tries each
// resource once, so that a failure is reported once.
func (l *loader) keepPrevious(p *Resource) {
	if l.tried[p] || l.loaded(p) {
		return
	}
	l.tried[p] = true
	reasons := l.names.add(p)
	for _, reason := range reasons {
		l.report(Problem{File: p.File, Reason: nameOf(p) + ": its previous definition cannot keep serving: " + reason})
	}
	if len(reasons) == 0 {
		l.resources = append(l.resources, p)
		l.kept[p] = true
	}
}

// loaded reports whether a definition of p's resource is loaded.
func (l *loader) loaded(p *Resource) bool {
	for _, r := range l.resources {
		if r.GroupResource() == p.GroupResource() {
			return true
		}
	}
	return false
}

// nameOf names a loaded resource in problems, as definitionName does.
func nameOf(r *Resource) string {
	return definitionName(&native{Group: r.Group, Kind: r.Kind})
}

// walkFailures lists the folders (or files) a walk could not read.
func walkFailures(problems []Problem) []string {
	var out []string
	for _, p := range problems {
		out = append(out, p.File)
	}
	return out
}

// inAny reports whether file is one of paths or lies under one of them;
// "." is the root and holds everything.
func inAny(file string, paths []string) bool {
	for _, p := range paths {
		if p == "." || file == p || strings.HasPrefix(file, p+"/") {
			return true
		}
	}
	return false
}
