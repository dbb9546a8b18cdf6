package jsonscan

import (
	"strings"
	"testing"
)

func TestEachMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		obj  string
		want string // key=value pairs, as JSON text, separated by " | "
	}{
		{`{}`, ""},
		{` { } `[1:], ""},
		{`{"a":1}`, `"a"=1`},
		{`{ "a" : 1 , "b" :"x" }`, `"a"=1 | "b"="x"`},
		{`{"a":"q\"uote","b\\":"back\\","c":"\\\""}`, `"a"="q\"uote" | "b\\"="back\\" | "c"="\\\""`},
		{`{"o":{"x":[1,{"y":"}"}]},"l":[[],{}],"n":-1.5e3,"t":true,"z":null}`,
			`"o"={"x":[1,{"y":"}"}]} | "l"=[[],{}] | "n"=-1.5e3 | "t"=true | "z"=null`},
		{"{\n\t\"a\":\n\t[ 1, 2 ]\r\n}", `"a"=[ 1, 2 ]`},
	}
	for _, tt := range tests {
		var got []string
		EachMember(tt.obj, func(kraw, raw string) { got = append(got, kraw+"="+raw) })
		if g := strings.Join(got, " | "); g != tt.want {
			t.Errorf("EachMember(%s):\n got %s\nwant %s", tt.obj, g, tt.want)
		}
	}
}

func TestUnquote(t *testing.T) {
	t.Parallel()
	for kraw, want := range map[string]string{`"a"`: "a", `""`: "", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `"a.b/c"`: "a.b/c"} {
		if got := Unquote(kraw); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", kraw, got, want)
		}
	}
}
