package schema

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// pathElem is one step of a field path: an object key, or an array index
// when index >= 0.
type pathElem struct {
	key   string
	index int
}

// fieldPath is a field path under construction during a walk. Elements are
// pushed and popped as the walk descends, and the path is rendered only when
// something is reported, so a walk that reports nothing allocates nothing.
type fieldPath []pathElem

// String renders the path the way Kubernetes does: "spec.ports[0].name".
func (p fieldPath) String() string {
	var b strings.Builder
	for _, e := range p {
		if e.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
			continue
		}
		writeKey(&b, e.key)
	}
	return b.String()
}

// writeKey appends one key to a rendered path. A key that would make the
// path ambiguous (a map key such as "app.kubernetes.io/name") goes in
// brackets, as Kubernetes renders map keys.
func writeKey(b *strings.Builder, key string) {
	if key == "" || strings.ContainsAny(key, ".[]") {
		b.WriteByte('[')
		b.WriteString(key)
		b.WriteByte(']')
		return
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(key)
}

// joinKey appends key to an already rendered path.
func joinKey(path, key string) string {
	var b strings.Builder
	b.WriteString(path)
	writeKey(&b, key)
	return b.String()
}

// pointerTokens splits a JSON pointer (or a URL fragment holding one, as
// jsonschema writes them: each token also path-escaped) into raw tokens.
func pointerTokens(ptr string) []string {
	if i := strings.IndexByte(ptr, '#'); i >= 0 {
		ptr = ptr[i+1:]
	}
	ptr = strings.TrimPrefix(ptr, "/")
	if ptr == "" {
		return nil
	}
	tokens := strings.Split(ptr, "/")
	for i, t := range tokens {
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		t = strings.ReplaceAll(t, "~1", "/")
		tokens[i] = strings.ReplaceAll(t, "~0", "~")
	}
	return tokens
}

// fragment escapes one JSON pointer token for a URL fragment, as jsonschema
// writes them.
func fragment(token string) string {
	return url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1"))
}

// lookup returns the value at pointer tokens in a document.
func lookup(doc gjson.Result, tokens []string) gjson.Result {
	if len(tokens) == 0 {
		return doc
	}
	escaped := make([]string, len(tokens))
	for i, t := range tokens {
		escaped[i] = gjson.Escape(t)
	}
	return doc.Get(strings.Join(escaped, "."))
}

// resolve follows a JSON pointer into a document and returns the value found
// and its field path, rendered after base. The document decides whether a
// numeric token is an array index or a map key, which the pointer cannot.
func resolve(doc gjson.Result, ptr, base string) (gjson.Result, string) {
	path := base
	for _, t := range pointerTokens(ptr) {
		if doc.IsArray() {
			path += "[" + t + "]"
			doc = doc.Get(t)
			continue
		}
		path = joinKey(path, t)
		doc = doc.Get(gjson.Escape(t))
	}
	return doc, path
}
