package table

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The regular expressions of client-go's parser.
var (
	dictKeyRex       = regexp.MustCompile(`^'([^']*)'$`)
	sliceOperatorRex = regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`)
	filterRex        = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// parseArray reads what follows "[": an index, a slice, [*] or ['key'].
func (p *parser) parseArray(steps []step) ([]step, error) {
	i := strings.IndexAny(p.in[p.pos:], "]\n")
	if i < 0 || p.in[p.pos+i] == '\n' {
		return nil, fmt.Errorf("unterminated array")
	}
	text := p.in[p.pos : p.pos+i]
	p.pos += i + 1
	if text == "*" {
		text = ":"
	}
	if strings.Contains(text, ",") {
		return nil, errUnsupported // union
	}
	if m := dictKeyRex.FindStringSubmatch(text); m != nil {
		// client-go reads ['a.b'] as .a.b: quotes do not protect dots.
		more, err := parseSteps("." + m[1])
		if err != nil {
			return nil, err
		}
		return append(steps, more...), nil
	}
	m := sliceOperatorRex.FindStringSubmatch(text)
	if m == nil {
		return nil, fmt.Errorf("invalid array index %s", text)
	}
	params, err := sliceParams(m[1:])
	if err != nil {
		return nil, err
	}
	return append(steps, step{kind: stepSlice, slice: params}), nil
}

// sliceParams turns "start", ":end", ":step" into client-go's ParamsEntry:
// a missing end after a start is start+1, which makes [i] an index.
func sliceParams(value []string) ([3]sliceParam, error) {
	var params [3]sliceParam
	for i := range 3 {
		v := value[i]
		switch {
		case v == "" && i == 1:
			params[i] = sliceParam{known: true, value: params[0].value + 1, derived: true}
		case v == "":
		case i > 0 && v == ":":
		default:
			if i > 0 {
				v = v[1:]
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return params, fmt.Errorf("array index %s is not a number", v)
			}
			params[i] = sliceParam{known: true, value: n}
		}
	}
	return params, nil
}

// parseFilter reads "[?(left op right)]" or "[?(path)]" (the path exists).
func (p *parser) parseFilter(steps []step) ([]step, error) {
	p.pos += len("[?(")
	start := p.pos
	if err := p.skipCondition(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.in) || p.in[p.pos] != ']' {
		return nil, fmt.Errorf("unclosed array expect ]")
	}
	p.pos++
	text := p.in[start : p.pos-2]
	f := &filter{op: "exists"}
	var err error
	if m := filterRex.FindStringSubmatch(text); m == nil {
		f.left, err = parseOperand(text)
	} else if f.left, err = parseOperand(m[1]); err == nil {
		f.right, err = parseOperand(m[3])
		f.op = m[2]
	}
	if err != nil {
		return nil, err
	}
	if !knownOperator(f.op) {
		// client-go fails on it whenever a row reaches the comparison.
		return nil, errUnsupported
	}
	return append(steps, step{kind: stepFilter, filter: f}), nil
}

// skipCondition moves past the closing ")" of a filter, which client-go finds
// by pairing one quoted string at most.
func (p *parser) skipCondition() error {
	begin, end := false, false
	var pair byte
	for {
		if p.pos >= len(p.in) || p.in[p.pos] == '\n' {
			return fmt.Errorf("unterminated filter")
		}
		c := p.in[p.pos]
		p.pos++
		switch c {
		case '"', '\'':
			if !begin {
				begin, pair = true, c
			} else if c == pair && p.in[p.pos-2] != '\\' {
				end = true
			}
		case ')':
			if begin == end {
				return nil
			}
		}
	}
}

// parseOperand parses one side of a filter: a path relative to the item
// ("@.type") or one literal.
func parseOperand(text string) (operand, error) {
	steps, err := parseSteps(text)
	if err != nil {
		return operand{}, err
	}
	if len(steps) == 1 && steps[0].kind == stepLiteral {
		return operand{literal: &steps[0].literal}, nil
	}
	for _, s := range steps {
		if s.kind == stepLiteral {
			return operand{}, errUnsupported
		}
	}
	return operand{path: newPath(steps)}, nil
}
