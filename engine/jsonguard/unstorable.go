package jsonguard

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// MaxScale is the most digits after the decimal point PostgreSQL's numeric
// (and so jsonb) stores.
const MaxScale = 16383

// Unstorable lists the values of the JSON document obj that PostgreSQL's
// jsonb cannot store, at most max of them: strings and keys holding
// U+0000, and numbers out of range. obj must be valid JSON; Normalize has
// replaced what is not UTF-8.
func Unstorable(obj []byte, max int) []engine.FieldError {
	if storable(jsonscan.View(obj)) {
		return nil
	}
	return walk(obj, max)
}

// walk finds the unstorable values of obj with their paths.
func walk(obj []byte, max int) []engine.FieldError {
	w := walker{max: max}
	w.value(gjson.ParseBytes(obj))
	return w.causes
}

// storable reports whether obj, valid JSON, surely holds nothing jsonb
// refuses, in one pass over its bytes, which is most of the time the whole
// answer: the walk renders the path of every member it passes (a write's
// managedFields alone have dozens) to name the values at fault. Strings
// without a backslash are jumped over, numbers read only when an exponent
// or more than 300 digits could take them out of range.
func storable(obj string) bool {
	for i := 0; i < len(obj); {
		switch c := obj[i]; {
		case c == '"':
			end := jsonscan.SkipString(obj, i)
			if s := obj[i:end]; strings.IndexByte(s, '\\') >= 0 && hasNUL(s) {
				return false
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end := jsonscan.SkipValue(obj, i)
			if n := obj[i:end]; (len(n) > 300 || strings.ContainsAny(n, "eE")) && numberProblem(n) != "" {
				return false
			}
			i = end
		default:
			i++
		}
	}
	return true
}

type walker struct {
	path   []string // rendered path elements: ".key", "[key]" or "[0]"
	causes []engine.FieldError
	max    int
}

func (w *walker) full() bool { return len(w.causes) >= w.max }

func (w *walker) value(v gjson.Result) {
	switch {
	case w.full():
	case v.Type == gjson.String:
		if hasNUL(v.Raw) {
			w.report(nulMessage("string"))
		}
	case v.Type == gjson.Number:
		if msg := numberProblem(v.Raw); msg != "" {
			w.report("Invalid value: " + shorten(v.Raw) + ": " + msg)
		}
	case v.IsArray():
		i := 0
		v.ForEach(func(_, item gjson.Result) bool {
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			w.value(item)
			w.path = w.path[:len(w.path)-1]
			i++
			return !w.full()
		})
	case v.IsObject():
		v.ForEach(func(key, item gjson.Result) bool {
			w.path = append(w.path, keyElem(key.Str))
			if hasNUL(key.Raw) {
				w.report(nulMessage("key"))
			}
			w.value(item)
			w.path = w.path[:len(w.path)-1]
			return !w.full()
		})
	}
}

func (w *walker) report(msg string) {
	if w.full() {
		return
	}
	path := strings.TrimPrefix(strings.Join(w.path, ""), ".")
	w.causes = append(w.causes, engine.FieldError{Type: engine.CauseInvalid, Path: path, Message: msg})
}

// keyElem renders one key of a path as Kubernetes does, a map key that
// would make the path ambiguous in brackets. U+0000 is shown escaped.
func keyElem(key string) string {
	key = strings.ReplaceAll(key, "\x00", `\u0000`)
	if key == "" || strings.ContainsAny(key, ".[]/") {
		return "[" + key + "]"
	}
	return "." + key
}

// hasNUL reports whether a raw JSON string holds the escape \u0000, the
// only way valid JSON writes U+0000. An escaped backslash before "u0000"
// is no escape of it.
func hasNUL(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if strings.HasPrefix(raw[i+1:], "u0000") {
			return true
		}
		i++ // skip the escaped character
	}
	return false
}

func nulMessage(what string) string {
	return "Invalid value: the " + what + " holds the character U+0000, which PostgreSQL's jsonb cannot store"
}

// numberProblem says why PostgreSQL's jsonb cannot store the JSON number
// raw as kube-apiserver reads it, or returns "". kube-apiserver decodes a
// number into an int64 or a float64: one beyond a float64's range is
// refused; jsonb's numeric keeps at most MaxScale digits after the point.
func numberProblem(raw string) string {
	if f, err := strconv.ParseFloat(raw, 64); errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
		return "the number is out of range: it must lie within ±1.8e308 (a float64)"
	}
	if scale(raw) > MaxScale {
		return "the number has more than " + strconv.Itoa(MaxScale) + " digits after the decimal point, more than PostgreSQL's jsonb stores"
	}
	return ""
}

// scale is the count of digits after the decimal point of raw once its
// exponent is applied, saturating at a large bound.
func scale(raw string) int {
	mantissa, exp := raw, 0
	if i := strings.IndexAny(raw, "eE"); i >= 0 {
		mantissa = raw[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(raw[i+1:], "+"))
		if err != nil { // beyond an int: saturate
			e = 1 << 40
			if strings.HasPrefix(raw[i+1:], "-") {
				e = -e
			}
		}
		exp = e
	}
	frac := 0
	if i := strings.IndexByte(mantissa, '.'); i >= 0 {
		frac = len(mantissa) - i - 1
	}
	return frac - exp
}

// shorten quotes a value for a message, cut to its first 32 bytes.
func shorten(raw string) string {
	if len(raw) > 32 {
		raw = raw[:32] + "..."
	}
	return strconv.Quote(raw)
}
