package prove

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// formats are a valid value for each string format kube-apiserver checks.
var formats = map[string]string{
	"date-time": "2026-01-02T03:04:05Z", "datetime": "2026-01-02T03:04:05Z", "date": "2026-01-02",
	"email": "someone@example.com", "uri": "https://example.com/a", "hostname": "host.example.com",
	"ipv4": "10.0.0.1", "ipv6": "fd00::1", "cidr": "10.0.0.0/8", "mac": "00:11:22:33:44:55",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "byte": "aGVsbG8=", "duration": "1h30m",
	"bsonobjectid": "507f1f77bcf86cd799439011", "isbn": "9780306406157", "creditcard": "4111111111111111",
	"rgbcolor": "rgb(1,2,3)", "hexcolor": "#aabbcc", "ssn": "123-45-6789", "password": "secret",
}

// string writes a string: an enum value (turning through them from one
// object to the next), a value of the format, or a unique word that fits
// the length bounds and, when it can, the pattern.
func (g *generator) string(out []byte, s gjson.Result) []byte {
	if enum := s.Get("enum").Array(); len(enum) > 0 {
		return append(out, enum[(g.index+g.n)%len(enum)].Raw...)
	}
	if v, ok := formats[s.Get("format").Str]; ok {
		if pattern := s.Get("pattern"); pattern.Exists() {
			v = matching(pattern.Str, v, microTime)
		}
		return gjson.AppendJSONString(out, v)
	}
	word := "s" + strconv.Itoa(g.n)
	if pattern := s.Get("pattern"); pattern.Exists() {
		word = matching(pattern.Str, word)
	}
	if lo := int(s.Get("minLength").Int()); len(word) < lo {
		word += strings.Repeat("x", lo-len(word))
	}
	if hi := s.Get("maxLength"); hi.Exists() && len(word) > int(hi.Int()) {
		word = word[:hi.Int()]
	}
	return gjson.AppendJSONString(out, word)
}

// microTime is a date-time in the form Kubernetes' MicroTime fields require
// (a pattern in their schemas): six digits of fraction.
const microTime = "2026-01-02T03:04:05.000000Z"

// simpleWords are tried, in order, when a word does not fit a pattern.
var simpleWords = []string{"a", "abc", "a1", "A", "Abc", "1", "12", "a-b", "a.b", "a_b", "x:y"}

// matching returns word, or a simple string the pattern accepts (the
// alternatives first): the proof needs valid objects, not clever ones.
func matching(pattern, word string, alternatives ...string) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return word
	}
	for _, w := range append(append([]string{word}, alternatives...), simpleWords...) {
		if re.MatchString(w) {
			return w
		}
	}
	return word
}

// integer writes an integer within the schema's bounds, turning through
// the bounds and a few ordinary values.
func (g *generator) integer(out []byte, s gjson.Result) []byte {
	v := g.pick(s, []float64{1, 7, 42, 0, 100, 3})
	return strconv.AppendInt(out, int64(math.Round(v)), 10)
}

// number writes a number within the schema's bounds; some have fractions,
// so that a rule that rounds is caught.
func (g *generator) number(out []byte, s gjson.Result) []byte {
	v := g.pick(s, []float64{2.5, 7, 0.25, 42, 1.75, 3})
	if m := s.Get("multipleOf").Float(); m > 0 {
		v = math.Max(1, math.Round(v/m)) * m
	}
	return strconv.AppendFloat(out, v, 'f', -1, 64)
}

// pick chooses a candidate, moved into the schema's bounds.
func (g *generator) pick(s gjson.Result, candidates []float64) float64 {
	v := candidates[(g.index+g.n)%len(candidates)]
	if lo := s.Get("minimum"); lo.Exists() {
		floor := lo.Float()
		if s.Get("exclusiveMinimum").Bool() {
			floor++
		}
		v = math.Max(v, floor)
	}
	if hi := s.Get("maximum"); hi.Exists() {
		ceil := hi.Float()
		if s.Get("exclusiveMaximum").Bool() {
			ceil--
		}
		v = math.Min(v, ceil)
	}
	return v
}
