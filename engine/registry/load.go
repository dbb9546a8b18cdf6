package registry

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

const (
	crdAPIVersion = "apiextensions.k8s.io/v1"
	crdKind       = "CustomResourceDefinition"
)

// Load parses the built-in definitions (package builtin; see
// LoadOptions.WithoutBuiltins), then every *.yaml, *.yml and *.json file
// under schemas, then
// under conversions (nil: none), recursively, in path order; each holds
// one or more YAML or JSON documents separated by "---" lines. Directories
// named testdata, and files and directories whose name starts with "."
// (editor and VCS files), are skipped.
//
// A broken file or document, or a definition that fails a check, is
// reported as a Problem and skipped; everything else still loads. When two
// definitions claim the same name in a group, the one in the later file
// (or later in the same file) is refused; a built-in definition's names
// are never given up.
//
// A conversion rules file (see package convert) names its kind; its rules
// are checked against the kind's schemas and attached to the Resource as
// Conversion. A rules file that is broken, fails a check, or names a kind
// that is not loaded is reported as a Problem; when it names a loaded
// kind, that kind is refused too, as serving it without its rules would
// answer in the wrong shape. A second rules file for one kind is refused
// alone. Load never returns a nil Snapshot.
func Load(schemas, conversions fs.FS) (*Snapshot, []Problem) {
	return LoadWith(schemas, conversions, LoadOptions{})
}

// LoadWith is Load with options: a reload that keeps what worked (see
// LoadOptions.Previous), definitions created through the API, groups and
// versions switched off, and a say on schema changes.
func LoadWith(schemas, conversions fs.FS, opts LoadOptions) (*Snapshot, []Problem) {
	l := newLoader(schemas, opts)
	l.loadBuiltins()
	files, problems := definitionFiles(schemas)
	l.unreadable = walkFailures(problems)
	for _, p := range problems {
		l.report(p)
	}
	sources := make([]source, 0, len(files)+len(opts.APIDefinitions))
	for _, f := range files {
		sources = append(sources, l.readFile(f))
	}
	l.loadSources(append(sources, l.apiSources()...))
	l.claimAll()
	if conversions != nil {
		l.loadConversions(conversions)
	}
	l.loadAPIConversions()
	l.adoptPrevious()
	l.bindFields()
	l.checkChanges()
	admission := l.settleAdmission()
	// A file's syntax errors are found before its definitions are checked;
	// report them all in reading order, definitions first.
	slices.SortStableFunc(l.problems, func(a, b Problem) int {
		return cmp.Or(compareBool(a.Conversion, b.Conversion), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	s := newSnapshot(l.resources, l.kept)
	s.built = l.built
	s.admission = admission
	return s, l.problems
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// loader accumulates one Load's results.
type loader struct {
	fsys fs.FS
	opts LoadOptions
	prev *Snapshot // opts.Previous, or an empty snapshot
	// candidates are the definitions built, before their names are claimed.
	candidates []candidate
	names      nameIndex
	resources  []*Resource
	// kept are the resources of prev serving on because the file that
	// defines them was refused; they are shared with prev, never modified.
	kept     map[*Resource]bool
	tried    map[*Resource]bool // the resources of prev keepPrevious was asked about
	problems []Problem
	// refused holds the definition files (and "api/<name>" sources) with a
	// problem; unreadable the folders of schemas that could not be read.
	refused    map[string]bool
	unreadable []string
	// built are the sources that loaded without a problem, for the next
	// load to reuse (see reuse.go).
	built map[string]*built
	// admission are the admission documents read (see admission.go).
	admission []AdmissionDocument
}

func newLoader(fsys fs.FS, opts LoadOptions) *loader {
	prev := opts.Previous
	if prev == nil {
		prev = Empty()
	}
	return &loader{fsys: fsys, opts: opts, prev: prev, names: nameIndex{},
		kept: map[*Resource]bool{}, tried: map[*Resource]bool{}, refused: map[string]bool{}, built: map[string]*built{}}
}

// report records a problem; a problem of a definition source refuses it.
func (l *loader) report(p Problem) {
	l.problems = append(l.problems, p)
	if !p.Conversion {
		l.refused[p.File] = true
	}
}

// definitionFiles lists the files to read, sorted by path.
func definitionFiles(fsys fs.FS) ([]string, []Problem) {
	var files []string
	var problems []Problem
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, Problem{File: p, Reason: err.Error()})
			return nil
		}
		hidden := p != "." && strings.HasPrefix(d.Name(), ".")
		if d.IsDir() && (hidden || d.Name() == "testdata") {
			return fs.SkipDir
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() && !hidden {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		problems = append(problems, Problem{File: ".", Reason: err.Error()})
	}
	slices.Sort(files) // WalkDir's order puts "a/x.yaml" before "a.yaml"
	return files, problems
}

// readFile reads one definition file.
func (l *loader) readFile(file string) source {
	src, err := fs.ReadFile(l.fsys, file)
	return source{file: file, src: src, isJSON: path.Ext(file) == ".json", err: err}
}

// loadSource loads every document of one file's text, or takes what the
// previous snapshot built from the same text.
func (l *loader) loadSource(file string, src []byte, isJSON bool) {
	key := keyOf(src, isJSON)
	if l.reuse(file, key) {
		return
	}
	first, problems := len(l.candidates), len(l.problems)
	l.compileSource(file, src, isJSON)
	l.remember(file, key, first, problems)
}

// compileSource loads every document of one file's text.
func (l *loader) compileSource(file string, src []byte, isJSON bool) {
	var docs []document
	var broken []Problem
	for _, c := range splitDocuments(src) {
		out, empty, line, err := toJSON(c, isJSON)
		switch {
		case err != nil:
			broken = append(broken, Problem{File: file, Line: line, Reason: err.Error()})
		case !empty:
			docs = append(docs, document{file: file, line: c.line, src: c.src, json: out})
		}
	}
	for _, p := range broken {
		l.report(p)
	}
	for _, d := range docs {
		d.multi = len(docs)+len(broken) > 1
		l.loadDocument(d)
	}
}

// loadDocument decodes, checks and builds one definition; its names are
// claimed later, in precedence order (see claimAll).
func (l *loader) loadDocument(d document) {
	if a, ok := admissionOf(d); ok {
		l.loadAdmission(d, a)
		return
	}
	n, reasons, problem := decode(d)
	if problem != nil {
		l.report(*problem)
		return
	}
	l.opts.RuntimeConfig.apply(n)
	r, more := build(n, d.file, l.opts)
	reasons = append(reasons, more...)
	for _, reason := range reasons {
		l.report(d.problem(definitionName(n) + ": " + reason))
	}
	if len(reasons) == 0 {
		l.candidates = append(l.candidates, candidate{res: r.fresh(), doc: d, name: definitionName(n)})
	}
}

// decode picks the document's format: a CustomResourceDefinition declares
// itself with apiVersion and kind; a native definition has no apiVersion.
// It returns the definition and the reasons to refuse it that belong to its
// format, or a Problem when the document is no definition at all.
func decode(d document) (*native, []string, *Problem) {
	var head struct {
		APIVersion any `json:"apiVersion"`
		Kind       any `json:"kind"`
	}
	if err := json.Unmarshal(d.json, &head); err != nil {
		return problemf(d, "a definition must be a mapping (an object), not %s", jsonKind(d.json))
	}
	switch {
	case head.APIVersion == nil:
		return decodeNative(d)
	case head.APIVersion == crdAPIVersion && head.Kind == crdKind:
		return decodeCRD(d)
	case head.Kind == crdKind:
		return problemf(d, "apiVersion %v: only %s CustomResourceDefinitions are read "+
			"(apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22)", head.APIVersion, crdAPIVersion)
	}
	return problemf(d, "not a definition: apiVersion %v, kind %v; "+
		"only %s %s and the native format (no apiVersion) are read", head.APIVersion, head.Kind, crdAPIVersion, crdKind)
}

func problemf(d document, format string, args ...any) (*native, []string, *Problem) {
	p := d.problem(fmt.Sprintf(format, args...))
	return nil, nil, &p
}

// jsonKind names the type of a JSON document's top-level value.
func jsonKind(doc []byte) string {
	switch doc[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	default:
		return "a scalar"
	}
}

// definitionName names a definition in problems, so that one document among
// several is easy to find: "Widget.shop.example.com", "Namespace".
func definitionName(n *native) string {
	name := n.Kind
	if name == "" {
		name = n.Plural
	}
	if name == "" {
		name = "definition"
	}
	if n.Group != "" {
		name += "." + n.Group
	}
	return name
}
