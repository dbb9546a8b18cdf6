package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	// Kubernetes' own YAML-to-JSON conversion, so a file reads here exactly
	// as kubectl reads it (YAML 1.1 scalars, keys as strings).
	"sigs.k8s.io/yaml"
)

// document is one YAML or JSON document of a definition file, converted to JSON.
type document struct {
	file string
	line int    // the file's line where the document starts, 1-based
	src  []byte // the document's own text, to find the line of a key
	json []byte
	// multi says the file holds several documents; problems then point at
	// the document's first line so the reader knows which one is meant.
	multi bool
}

// problem builds a Problem about the whole document.
func (d document) problem(reason string) Problem {
	p := Problem{File: d.file, Reason: reason}
	if d.multi {
		p.Line = d.line
	}
	return p
}

// chunk is the text of one document and the file line it starts on.
type chunk struct {
	line int
	src  []byte
}

// splitDocuments cuts a file at its "---" lines, as kubectl does. A chunk
// with nothing but blanks and comments is kept here and dropped after
// conversion, where YAML itself says it is empty.
func splitDocuments(src []byte) []chunk {
	var chunks []chunk
	cur := chunk{line: 1}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, l := range lines {
		if isSeparator(l) {
			chunks = append(chunks, cur)
			cur = chunk{line: i + 2}
			continue
		}
		cur.src = append(cur.src, l...)
	}
	return append(chunks, cur)
}

// isSeparator reports whether a line is a YAML document marker "---",
// alone or followed by blanks or a comment.
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || rest[0] == '#'
}

// toJSON converts one chunk. JSON is taken as it is, so that JSON files get
// JSON's error messages and numbers keep their exact text; anything else is
// YAML. Strict YAML parsing refuses duplicate keys, which in a definition are
// always a mistake. empty is true for a chunk holding no document.
func toJSON(c chunk, isJSONFile bool) (out []byte, empty bool, line int, err error) {
	trimmed := bytes.TrimSpace(c.src)
	if len(trimmed) == 0 {
		return nil, true, 0, nil
	}
	if isJSONFile || trimmed[0] == '{' && json.Valid(trimmed) {
		return jsonChunk(c)
	}
	out, err = yaml.YAMLToJSONStrict(c.src)
	if err != nil {
		line, msg := yamlErrorLine(err)
		return nil, false, c.line + max(line, 1) - 1, errors.New(msg)
	}
	return out, string(out) == "null", 0, nil
}

// jsonChunk checks a JSON document and finds the line of a syntax error.
func jsonChunk(c chunk) ([]byte, bool, int, error) {
	var v any
	err := json.Unmarshal(c.src, &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line := c.line + bytes.Count(c.src[:syntax.Offset], []byte("\n"))
		return nil, false, line, fmt.Errorf("invalid JSON: %v", err)
	}
	if err != nil {
		return nil, false, c.line, fmt.Errorf("invalid JSON: %v", err)
	}
	return bytes.TrimSpace(c.src), v == nil, 0, nil
}

// yamlLine matches the position go-yaml writes into its errors: syntax
// errors say "yaml: line 3: ...", decoding errors (a duplicate key) say
// "yaml: unmarshal errors:" and then "  line 3: ..." once per error.
var yamlLine = regexp.MustCompile(`^(?:error converting YAML to JSON: )?yaml: (?:unmarshal errors:\s*)?(?:line (\d+): )?`)

// yamlErrorLine takes the line number of the first error out of a YAML
// error, and returns that error's message prefixed with "invalid YAML".
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return 0, "invalid YAML: " + msg
	}
	line, _ := strconv.Atoi(m[1])
	first, _, _ := strings.Cut(msg[len(m[0]):], "\n")
	return line, "invalid YAML: " + strings.TrimSpace(first)
}

// lineOfKey returns the file line of the one line of the document that sets
// key, or 0 when no line or several lines do (a line number is only worth
// giving when it is certainly right).
func (d document) lineOfKey(key string) int {
	re := regexp.MustCompile(`^\s*(?:-\s+)?["']?` + regexp.QuoteMeta(key) + `["']?\s*:`)
	found := 0
	for i, l := range strings.Split(string(d.src), "\n") {
		if !re.MatchString(l) {
			continue
		}
		if found != 0 {
			return 0
		}
		found = d.line + i
	}
	return found
}
