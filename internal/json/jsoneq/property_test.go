package jsoneq

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstReference compares random documents with other spellings of
// themselves, and of themselves changed in one place, and checks that
// Equal and the reference agree (and that the respellings are equal).
func TestAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		v := randomValue(r, 4)
		a, b := render(r, v), render(r, v)
		if !Equal([]byte(a), []byte(b)) {
			t.Fatalf("a respelling differs: %s\n%s\n%s", Diff([]byte(a), []byte(b)), a, b)
		}
		c := render(r, mutate(r, v))
		want, ok := reference([]byte(a), []byte(c))
		if !ok {
			t.Fatalf("the reference does not judge %s or %s", a, c)
		}
		if got := Equal([]byte(a), []byte(c)); got != want {
			t.Fatalf("Equal = %v, the reference says %v:\n%s\n%s", got, want, a, c)
		}
	}
}

// FuzzEqual checks that Equal never panics, is symmetric, and agrees
// with the reference where the reference judges.
func FuzzEqual(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2]}`), []byte(`{"b":[1,2.0],"a":1e0}`))
	f.Add([]byte(`{"a":"\u0041"}`), []byte(`{"a":"A"}`))
	f.Add([]byte(`[1e-3,{"x":null}]`), []byte(`[0.001,{"x":false}]`))
	f.Add([]byte(`"a\\\"b"`), []byte(`"a\\\"b"`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		got := Equal(a, b)
		if back := Equal(b, a); back != got {
			t.Fatalf("Equal(a, b) = %v but Equal(b, a) = %v", got, back)
		}
		if want, ok := reference(a, b); ok && got != want {
			t.Fatalf("Equal = %v, the reference says %v", got, want)
		}
		if (Diff(a, b) == "") != got {
			t.Fatalf("Diff %q disagrees with Equal %v", Diff(a, b), got)
		}
	})
}

// A value of the random documents: map[string]any, []any, a decimal,
// string, bool or nil.
type decimal struct {
	digits string // without leading zeros; "" for zero
	exp    int    // the value is 0.digits × 10^exp
	neg    bool
}

func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(10); {
	case depth > 0 && n < 2:
		m := map[string]any{}
		for range r.IntN(20) {
			m[randomString(r)] = randomValue(r, depth-1)
		}
		return m
	case depth > 0 && n < 4:
		s := make([]any, r.IntN(5))
		for i := range s {
			s[i] = randomValue(r, depth-1)
		}
		return s
	case n < 7:
		return randomDecimal(r)
	case n < 9:
		return randomString(r)
	}
	return []any{true, false, nil}[r.IntN(3)]
}

func randomDecimal(r *rand.Rand) decimal {
	d := decimal{exp: r.IntN(40) - 20, neg: r.IntN(2) == 0}
	if r.IntN(8) == 0 {
		return d
	}
	d.digits = strconv.Itoa(1 + r.IntN(9))
	for range r.IntN(20) {
		d.digits += strconv.Itoa(r.IntN(10))
	}
	d.digits = strings.TrimRight(d.digits, "0")
	return d
}

func randomString(r *rand.Rand) string {
	return []string{"", "a", "b", "ab", "A", "é", "x.io/y", `q"`, `\`, "\n", "😀"}[r.IntN(11)]
}

// mutate returns v with one value changed, or v itself at times.
func mutate(r *rand.Rand, v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, x := range v {
			m[k] = x
		}
		for k, x := range m {
			m[k] = mutate(r, x)
			return m
		}
		m[randomString(r)] = nil
		return m
	case []any:
		if len(v) == 0 || r.IntN(4) == 0 {
			return append(v[:len(v):len(v)], decimal{digits: "1", exp: 1})
		}
		s := append([]any{}, v...)
		i := r.IntN(len(s))
		s[i] = mutate(r, s[i])
		return s
	case decimal:
		if v.digits != "" && r.IntN(2) == 0 {
			v.digits += "1"
			return v
		}
	}
	return randomValue(r, 0)
}

// render writes v as JSON in one of its many spellings.
func render(r *rand.Rand, v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k) // map order: random enough
		}
		var b strings.Builder
		b.WriteString("{" + space(r))
		for i, k := range keys {
			if i > 0 {
				b.WriteString("," + space(r))
			}
			b.WriteString(quote(r, k) + space(r) + ":" + space(r) + render(r, v[k]) + space(r))
		}
		return b.String() + "}"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = space(r) + render(r, x) + space(r)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case decimal:
		return spell(r, v)
	case string:
		return quote(r, v)
	}
	return fmt.Sprint(map[any]string{true: "true", false: "false", nil: "null"}[v])
}

func space(r *rand.Rand) string { return []string{"", "", " ", "\n\t"}[r.IntN(4)] }

// quote writes s as a JSON string, some of its characters escaped.
func quote(r *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteString(`"`)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x10000 && r.IntN(3) == 0:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String() + `"`
}

// spell writes d with a random number of extra zeros and a random
// exponent, or as a plain decimal.
func spell(r *rand.Rand, d decimal) string {
	sign := ""
	if d.neg {
		sign = "-"
	}
	if d.digits == "" {
		return sign + []string{"0", "0.0", "0e5", "0.00E-3"}[r.IntN(4)]
	}
	digits, exp := d.digits+strings.Repeat("0", r.IntN(3)), d.exp
	point := r.IntN(len(digits) + 1) // digits before the point
	intPart, frac := digits[:point], digits[point:]
	if intPart == "" {
		intPart = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	// 0.digits × 10^exp = intPart.frac × 10^(exp-point)
	e := exp - point
	if e == 0 && r.IntN(2) == 0 {
		return sign + intPart + frac
	}
	letter := []string{"e", "E"}[r.IntN(2)]
	if e >= 0 && r.IntN(2) == 0 {
		letter += "+"
	}
	return sign + intPart + frac + letter + strconv.Itoa(e)
}
