package jsoneq

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b, want string }{
		{`{"a":1}`, `{"a":1.0}`, ``},
		{`1`, `2`, `the top: 1 vs 2`},
		{`{"spec":{"items":[1,2,{"size":3}]}}`, `{"spec":{"items":[1,2,{"size":4}]}}`, `.spec.items[2].size: 3 vs 4`},
		{`{"a":1,"b":2}`, `{"b":2}`, `.a: 1 vs (none)`},
		{`{"b":2}`, `{"b":2,"c":[]}`, `.c: (none) vs []`},
		{`{"labels":{"x.io/a":"1"}}`, `{"labels":{"x.io/a":"2"}}`, `.labels["x.io/a"]: "1" vs "2"`},
		{`[1]`, `[1,{}]`, `[1]: (none) vs {}`},
		{`{"a":[]}`, `{"a":{}}`, `.a: [] vs {}`},
		{`"` + strings.Repeat("x", 100) + `"`, `""`, `the top: "` + strings.Repeat("x", 79) + `… vs ""`},
	}
	for _, tt := range tests {
		if got := Diff([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Diff(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// fakeTB records what Assert reports.
type fakeTB struct{ errors []string }

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func TestAssert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
		ok              bool
		says            string
	}{
		{"equal", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true, ""},
		{"differ", `{"a":1}`, `{"a":2}`, false, "JSON differs at .a: 1 vs 2"},
		{"got not JSON", `{"a":`, `{}`, false, "got is not JSON"},
		{"want not JSON", `{}`, `nope`, false, "want is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tb fakeTB
			if ok := Assert(&tb, []byte(tt.got), tt.want); ok != tt.ok || ok != (len(tb.errors) == 0) {
				t.Fatalf("Assert = %v with %q; want %v", ok, tb.errors, tt.ok)
			}
			if !tt.ok && !strings.Contains(tb.errors[0], tt.says) {
				t.Errorf("Assert said %q; want it to say %q", tb.errors[0], tt.says)
			}
		})
	}
}
