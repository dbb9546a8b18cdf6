package registry

import (
	"bytes"
	"crypto/sha256"
	"strings"
)

// A load reuses what the previous snapshot compiled. Compiling a
// definition (translating and compiling its schemas, checking its defaults)
// is by far the costliest part of a load, and a change touches one
// definition among hundreds: so each snapshot remembers, per definition
// source (a file, or "api/<name>"), the hash of its text and the
// definitions built from it, and the next load takes those as they were
// when the text is the same. Names are still claimed afresh from every
// candidate, in precedence order, which costs a few map operations per
// definition and decides every conflict exactly as a full load does.

// sourceKey identifies a source's text and how it is read.
type sourceKey [sha256.Size]byte

func keyOf(src []byte, isJSON bool) sourceKey {
	h := sha256.New()
	h.Write(src)
	if isJSON {
		h.Write([]byte{1})
	}
	var k sourceKey
	h.Sum(k[:0])
	return k
}

// built is what a source compiled to, when it loaded without a problem:
// its candidates as built, before any load attached rules to them.
type built struct {
	key   sourceKey
	src   []byte      // a definition created through the API: the text read (see apiKeyOf)
	cands []candidate // res has no rules attached; doc holds no text
	// admission are the source's admission documents.
	admission []AdmissionDocument
}

// reuse adds the candidates the previous snapshot built from the same
// text of file, and reports whether there were any to take.
func (l *loader) reuse(file string, key sourceKey) bool {
	b, ok := l.prev.built[file]
	if !ok || b.key != key {
		return false
	}
	for _, c := range b.cands {
		c.res = c.res.fresh()
		l.candidates = append(l.candidates, c)
	}
	l.admission = append(l.admission, b.admission...)
	l.built[file] = b
	return true
}

// remember keeps the candidates a source built (those from first onward),
// unless the source had a problem, for the next load to reuse.
func (l *loader) remember(file string, key sourceKey, first, problems int) {
	if l.refused[file] || len(l.problems) != problems {
		return
	}
	b := &built{key: key}
	if IsAPIFile(file) {
		b.src = l.opts.APIDefinitions[strings.TrimPrefix(file, APIFilePrefix)]
	}
	for _, a := range l.admission {
		if a.File == file {
			b.admission = append(b.admission, a)
		}
	}
	for i := first; i < len(l.candidates); i++ {
		c := l.candidates[i]
		c.res = c.res.fresh() // the load may attach rules to the candidate
		c.doc = document{file: c.doc.file, line: c.doc.line, multi: c.doc.multi}
		b.cands = append(b.cands, c)
	}
	l.built[file] = b
}

// rememberText records the text of a reused definition created through
// the API, when it is other bytes than the last load's (its status
// changed, which its key leaves out), for apiKeyOf to find next time.
func (l *loader) rememberText(s source) {
	if b := l.built[s.file]; IsAPIFile(s.file) && !sameBytes(b.src, s.src) {
		nb := *b
		nb.src = s.src
		l.built[s.file] = &nb
	}
}

// fresh returns a copy of a Resource that has no rules attached, for
// one load to attach its rules to. It shares the compiled versions; its
// Fields, which must convert through the copy's rules, are bound once the
// load serves it (see bindFields).
func (r *Resource) fresh() *Resource {
	c := *r
	c.Fields = nil
	return &c
}

// sameBuild reports whether two resources were built by one compile of a
// definition: fresh copies share their Versions.
func sameBuild(a, b *Resource) bool {
	return len(a.Versions) > 0 && len(b.Versions) > 0 && &a.Versions[0] == &b.Versions[0]
}

// adoptPrevious puts back the previous snapshot's Resource for every
// resource built from the same source text with the same rules: it is
// the same definition, and sharing it keeps what it built lazily (such
// as managedFields' type information) and lets derived documents tell
// what did not change by identity.
func (l *loader) adoptPrevious() {
	for i, r := range l.resources {
		p, ok := l.prev.byResource[r.GroupResource()]
		if !ok || p == r || !sameBuild(p, r) || p.File != r.File ||
			p.ConversionFile != r.ConversionFile || !bytes.Equal(p.rulesJSON, r.rulesJSON) {
			continue
		}
		l.resources[i] = p
	}
}
