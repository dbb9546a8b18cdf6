package table

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// parser reads the inside of a client-go JSONPath action ("{.spec.a}"
// without the braces). It follows client-go's parser.go rule by rule, so that
// the paths it rejects are the ones kube-apiserver rejects, and it stops with
// errUnsupported at constructs this package does not evaluate.
type parser struct {
	in  string
	pos int
}

// parseSteps parses a whole action.
func parseSteps(in string) ([]step, error) {
	p := &parser{in: in}
	var steps []step
	for p.pos < len(p.in) {
		var err error
		if steps, err = p.next(steps); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

// next parses what starts at p.pos, as client-go's parseInsideAction.
func (p *parser) next(steps []step) ([]step, error) {
	rest := p.in[p.pos:]
	switch {
	case rest[0] == '}':
		// client-go ends the action here and reads the rest as more
		// template; printer columns have no use for that.
		return nil, errUnsupported
	case strings.HasPrefix(rest, "[?("):
		return p.parseFilter(steps)
	case strings.HasPrefix(rest, ".."):
		return nil, errUnsupported // recursive descent
	}
	r, w := utf8.DecodeRuneInString(rest)
	p.pos += w
	switch {
	case r == '\r' || r == '\n':
		return nil, fmt.Errorf("unclosed action")
	case r == ' ' || r == '@' || r == '$':
		return steps, nil
	case r == '[':
		return p.parseArray(steps)
	case r == '"' || r == '\'':
		return p.parseQuote(steps, r)
	case r == '.':
		return append(steps, p.parseField()), nil
	case r == '+' || r == '-' || unicode.IsDigit(r):
		p.pos -= w
		return p.parseNumber(steps)
	case isAlphaNumeric(r):
		p.pos -= w
		return p.parseIdentifier(steps)
	}
	return nil, fmt.Errorf("unrecognized character in action: %#U", r)
}

// parseField reads a key after "." up to an unescaped terminator; a
// backslash escapes the next character and is dropped, so
// "app\.kubernetes\.io/name" is one key.
func (p *parser) parseField() step {
	start := p.pos
	for p.pos < len(p.in) {
		r, w := utf8.DecodeRuneInString(p.in[p.pos:])
		if r == '\\' {
			p.pos += w
			_, w = utf8.DecodeRuneInString(p.in[p.pos:])
		} else if isTerminator(r) {
			break
		}
		p.pos += w
	}
	value := p.in[start:p.pos]
	if value == "*" {
		return step{kind: stepWildcard}
	}
	key := strings.ReplaceAll(value, `\`, "")
	return step{kind: stepField, key: key, gkey: gjson.Escape(key)}
}

// parseQuote reads a quoted string literal.
func (p *parser) parseQuote(steps []step, quote rune) ([]step, error) {
	start := p.pos - 1
	for {
		if p.pos >= len(p.in) || p.in[p.pos] == '\n' {
			return nil, fmt.Errorf("unterminated quoted string")
		}
		r, w := utf8.DecodeRuneInString(p.in[p.pos:])
		p.pos += w
		if r == quote && p.in[p.pos-2] != '\\' {
			break
		}
	}
	s, err := unquoteExtend(p.in[start:p.pos])
	if err != nil {
		return nil, fmt.Errorf("unquote string %s error %v", p.in[start:p.pos], err)
	}
	return append(steps, step{kind: stepLiteral, literal: scalar{kind: kindString, s: s}}), nil
}

// parseNumber reads an integer or float literal. client-go compares filter
// operands after turning ints into float64, so both become floats here.
func (p *parser) parseNumber(steps []step) ([]step, error) {
	start := p.pos
	if c := p.in[p.pos]; c == '+' || c == '-' {
		p.pos++
	}
	for p.pos < len(p.in) {
		r, w := utf8.DecodeRuneInString(p.in[p.pos:])
		if r != '.' && !unicode.IsDigit(r) {
			break
		}
		p.pos += w
	}
	value := p.in[start:p.pos]
	if i, err := strconv.Atoi(value); err == nil {
		return append(steps, step{kind: stepLiteral, literal: scalar{kind: kindFloat, f: float64(i)}}), nil
	}
	f, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return nil, fmt.Errorf("cannot parse number %s", value)
	}
	return append(steps, step{kind: stepLiteral, literal: scalar{kind: kindFloat, f: f}}), nil
}

// parseIdentifier reads true and false; other identifiers (range, end) are
// template keywords a printer column has no use for.
func (p *parser) parseIdentifier(steps []step) ([]step, error) {
	start := p.pos
	for p.pos < len(p.in) {
		r, w := utf8.DecodeRuneInString(p.in[p.pos:])
		if isTerminator(r) {
			break
		}
		p.pos += w
	}
	switch p.in[start:p.pos] {
	case "true":
		return append(steps, step{kind: stepLiteral, literal: scalar{kind: kindBool, b: true}}), nil
	case "false":
		return append(steps, step{kind: stepLiteral, literal: scalar{kind: kindBool}}), nil
	}
	return nil, errUnsupported
}

// isTerminator is client-go's: what ends a key or an identifier.
func isTerminator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func isAlphaNumeric(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// unquoteExtend is strconv.Unquote that also accepts single quotes, as
// client-go's UnquoteExtend.
func unquoteExtend(s string) (string, error) {
	quote := s[0]
	s = s[1 : len(s)-1]
	if !strings.ContainsRune(s, '\\') && !strings.ContainsRune(s, rune(quote)) {
		return s, nil
	}
	var b strings.Builder
	for len(s) > 0 {
		c, multibyte, rest, err := strconv.UnquoteChar(s, quote)
		if err != nil {
			return "", err
		}
		s = rest
		if c < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(c))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}
