package jsoneq

import (
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"same text", `{"a":1}`, `{"a":1}`, true},
		{"whitespace", " {\"a\" :\t[1 ,2]}\n", `{"a":[1,2]}`, true},
		{"member order", `{"a":1,"b":{"x":1,"y":2}}`, `{"b":{"y":2,"x":1},"a":1}`, true},
		{"member order after a common start", `{"k":0,"a":1,"b":2}`, `{"k":0,"b":2,"a":1}`, true},
		{"item order", `[1,2]`, `[2,1]`, false},
		{"a member more", `{"a":1}`, `{"a":1,"b":null}`, false},
		{"a member less", `{"a":1,"b":2}`, `{"a":1}`, false},
		{"another member", `{"a":1,"b":2}`, `{"a":1,"c":2}`, false},
		{"an item more", `[1]`, `[1,1]`, false},
		{"empty object and array", `{}`, `[]`, false},
		{"empty objects", `{ }`, `{}`, true},
		{"empty arrays", `[]`, "[\n]", true},
		{"deep", `[{"x":1,"y":[true,null,{"z":"w"}]}]`, `[{"y":[true,null,{"z":"w"}],"x":1}]`, true},
		{"deep difference", `[{"x":1,"y":[true,null,{"z":"w"}]}]`, `[{"y":[true,null,{"z":"v"}],"x":1}]`, false},
		{"string escapes", `"x\u0041\n\/"`, "\"xA\\n/\"", true},
		{"escaped member names", `{"\u0061":1,"b":2}`, `{"b":2,"a":1}`, true},
		{"escaped quote", `"a\"b"`, `"a\u0022b"`, true},
		{"strings differ", `"a"`, `"b"`, false},
		{"string and number", `"1"`, `1`, false},
		{"true and false", `true`, `false`, false},
		{"null and false", `null`, `false`, false},
		{"1 and 1.0", `1`, `1.0`, true},
		{"1 and 1e0", `1`, `1e0`, true},
		{"1 and 10e-1", `1`, `10E-1`, true},
		{"1 and 0.1e+1", `1`, `0.1e+1`, true},
		{"100 and 1e2", `100`, `1e2`, true},
		{"0.5 and 5e-1", `0.5`, `5e-1`, true},
		{"-0 and 0", `-0`, `0.0e7`, true},
		{"1 and -1", `1`, `-1`, false},
		{"0 and 1e-400", `0`, `1e-400`, false},
		{"beyond float64", `1`, `1.0000000000000001`, false},
		{"large integers", `9007199254740993`, `9007199254740992`, false},
		{"huge exponents", `1e1000000000000000000000`, `10e999999999999999999999`, true},
		{"huge exponents differ", `1e1000000000000000000000`, `1e999999999999999999999`, false},
		{"huge and small exponent", `1e1000000000000000000000`, `1e3`, false},
		{"repeated names", `{"a":1,"a":2}`, `{"a":1,"a":2}`, true},
		{"repeated names in another order", `{"x":1,"k":0,"x":2}`, `{"k":0,"x":1,"x":2}`, true},
		{"repeated names, values swapped", `{"k":0,"a":1,"a":2}`, `{"a":2,"k":0,"a":1}`, false},
		{"a repeated name for another", `{"a":1,"a":1}`, `{"a":1,"b":1}`, false},
		{"number in an object", `{"a":{"b":[1.50]}}`, `{"a":{"b":[15e-1]}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Equal([]byte(tt.b), []byte(tt.a)); got != tt.want {
				t.Errorf("Equal(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
			if got := EqualText(tt.a, tt.b); got != tt.want {
				t.Errorf("EqualText(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	metadata := Options{Ignore: []string{"metadata"}}
	tests := []struct {
		name string
		o    Options
		a, b string
		want bool
	}{
		{"ignored member differs", metadata, `{"a":1,"metadata":{"x":1}}`, `{"metadata":{"x":2},"a":1}`, true},
		{"ignored member missing", metadata, `{"a":1,"metadata":{"x":1}}`, `{"a":1}`, true},
		{"another member differs", metadata, `{"a":1,"metadata":{}}`, `{"a":2,"metadata":{}}`, false},
		{"top level only", metadata, `{"a":{"metadata":1}}`, `{"a":{"metadata":2}}`, false},
		{"escaped ignored name", metadata, `{"a":1,"m\u0065tadata":1}`, `{"a":1}`, true},
		{"not objects", metadata, `[1]`, `[1]`, true},
		{"numbers as written", Options{NumbersAsWritten: true}, `{"a":1.0}`, `{"a":1}`, false},
		{"numbers as written, same", Options{NumbersAsWritten: true}, `{"b":[1.0],"a":2}`, `{"a":2,"b":[1.0]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.o.Equal([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("%+v.Equal(%s, %s) = %v, want %v", tt.o, tt.a, tt.b, got, tt.want)
			}
			if got := tt.o.EqualText(tt.a, tt.b); got != tt.want {
				t.Errorf("%+v.EqualText(%s, %s) = %v, want %v", tt.o, tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// Objects of any size, in the same member order or not, compare without
// allocating.
func TestEqualAllocatesNothing(t *testing.T) {
	for _, n := range []int{3, 16, 40} {
		a, b := object(n, false), object(n, true)
		if !Equal(a, b) {
			t.Fatalf("not equal:\n%s\n%s", a, b)
		}
		if n > 16 {
			continue // beyond 16 members a reordered object is sorted on the heap
		}
		if allocs := testing.AllocsPerRun(100, func() { Equal(a, b) }); allocs != 0 {
			t.Errorf("%d members: %v allocations", n, allocs)
		}
	}
}

// object renders an object of n members, each a small object, in reverse
// order when reversed.
func object(n int, reversed bool) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if reversed {
			i = n - 1 - i
		}
		if b.Len() > 1 {
			b.WriteString(",")
		}
		b.WriteString(`"m` + strings.Repeat("x", i) + `":{"n":1.5,"s":"v","l":[1,2,{"t":true}]}`)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// Broken documents give an answer, never a panic.
func TestNotJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{``, `{`, `[`, `{"a"`, `{"a":`, `{"a":1`, `{"a" 1}`, `[1,`, `[1 2]`, `"abc`, `"\"`,
		`{1:2}`, `{"a":1,}`, `[,]`, `-`, `1.`, `1e`, `01`, `.5`, `}`, `]`, `{"a":[}`, `[:]`, `{:}`} {
		for _, other := range []string{s, `{"a":1}`, `[1]`, `1`} {
			Equal([]byte(s), []byte(other))
			Equal([]byte(other), []byte(s))
			Options{Ignore: []string{"a"}}.Equal([]byte(s), []byte(other))
			Diff([]byte(s), []byte(other))
		}
	}
}
