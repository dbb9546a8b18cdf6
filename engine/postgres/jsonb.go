package postgres

import (
	"sync"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// fromJSONB turns jsonb's text output into the body clients expect. jsonb
// stores keys sorted by length and prints a space after every ':' and ',',
// so a stored object would come back as {"kind": ..., "spec": ...,
// "apiVersion": ...}. This compacts it and puts apiVersion, kind and
// metadata first, as Kubernetes writes objects; the rest keeps its order.
// One pass compacts into the body returned and notes where each top-level
// member starts; only an object with apiVersion, kind or metadata (not,
// say, the metadata alone of a metadata-only list) is then reordered,
// through a scratch copy.
func fromJSONB(text []byte) []byte {
	return fromJSONBInto(make([]byte, 0, len(text)), text)
}

// fromJSONBInto is fromJSONB, appending to out (empty).
func fromJSONBInto(out, text []byte) []byte {
	var found [8]member // an object's top level: apiVersion, kind, metadata, spec, status, ...
	out, members := compactJSONB(out, text, found[:0])
	if !hasTypeMeta(out, members) {
		return out
	}
	scratch := compactBuffers.Get().(*[]byte)
	defer compactBuffers.Put(scratch)
	compact := append((*scratch)[:0], out...)
	*scratch = compact
	out = append(out[:0], '{')
	for _, key := range typeMeta {
		for _, m := range members {
			if m.hasKey(compact, key) {
				out = appendMember(out, compact[m.start:m.end])
			}
		}
	}
	for _, m := range members {
		if !m.hasKey(compact, typeMeta[0]) && !m.hasKey(compact, typeMeta[1]) && !m.hasKey(compact, typeMeta[2]) {
			out = appendMember(out, compact[m.start:m.end])
		}
	}
	return append(out, '}')
}

// typeMeta are the keys a body starts with, in order, quotes included.
var typeMeta = [...]string{`"apiVersion"`, `"kind"`, `"metadata"`}

// hasTypeMeta reports whether a member of the compacted text has a key
// of typeMeta.
func hasTypeMeta(compact []byte, members []member) bool {
	for _, m := range members {
		for _, key := range typeMeta {
			if m.hasKey(compact, key) {
				return true
			}
		}
	}
	return false
}

// compactBuffers hold the compacted text fromJSONB reorders: one
// allocation per object fewer, on every read.
var compactBuffers = sync.Pool{New: func() any { return new([]byte) }}

// listBodies is memory for the bodies of listed rows, handed back by lists
// whose reader keeps none (engine.ListOptions.Transient).
//
// Why: a list of 10,000 Widgets allocated 17 MB of bodies that lived
// until the next item was written to the client; the collector's work
// for them was a fifth of dynapi's CPU per listed row (callgrind,
// BenchmarkListHTTP). Reused, a list allocates a small box per row.
var listBodies bodyPool

// bodyPool keeps memory of bodies for the next ones.
type bodyPool struct{ pool sync.Pool }

// maxPooledBody is the largest memory kept: a body larger than that is
// rare, and would hold its memory in the pool for the small ones.
const maxPooledBody = 64 << 10

// get returns empty memory for a body of size bytes.
func (p *bodyPool) get(size int) []byte {
	if b, ok := p.pool.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

// put keeps body's memory for a later get; nothing may use body after.
func (p *bodyPool) put(body []byte) {
	if cap(body) > 0 && cap(body) <= maxPooledBody {
		p.pool.Put(&body)
	}
}

// member is where a top-level member ("key":value) lies in compacted text.
type member struct{ start, end int }

// hasKey reports whether the member's key is key, quotes included.
func (m member) hasKey(text []byte, key string) bool {
	return m.end-m.start > len(key) && string(text[m.start:m.start+len(key)]) == key && text[m.start+len(key)] == ':'
}

func appendMember(out, m []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, m...)
}

// compactJSONB appends text to out without the whitespace jsonb's output
// puts between tokens, and appends to members those of the top-level
// object (none when it is not an object). It relies on that output being
// valid JSON: whitespace occurs only outside strings, and a string's
// quotes are found by skipping escaped characters.
func compactJSONB(out, text []byte, members []member) ([]byte, []member) {
	view := jsonscan.View(text) // read only
	depth, object := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			if object && depth == 1 && (len(members) == 0 || members[len(members)-1].end >= 0) {
				members = append(members, member{start: len(out), end: -1}) // a key at the top level
			}
			end := jsonscan.SkipString(view, i)
			out = append(out, text[i:end]...)
			i = end - 1
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
		case c == '{' || c == '[':
			object = object || (depth == 0 && c == '{')
			depth++
			out = append(out, c)
		case c == '}' || c == ']':
			depth--
			if depth == 0 && len(members) > 0 {
				members[len(members)-1].end = len(out)
			}
			out = append(out, c)
		case c == ',' && depth == 1 && object:
			members[len(members)-1].end = len(out)
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out, members
}

// remainderFromJSONB compacts a remainder read from a jsonb column (nil
// stays nil): conversion splices its values into bodies as they are.
func remainderFromJSONB(text []byte) []byte {
	if text == nil {
		return nil
	}
	out, _ := compactJSONB(make([]byte, 0, len(text)), text, nil)
	return out
}
