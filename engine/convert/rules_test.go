package convert

import (
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// Every rule in both directions: v1 → v2 (the hub) gives hub, and hub → v1
// gives back (in, when back is empty).
func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		rules         string // v1's toHub, a YAML flow list
		in, hub, back string // members of the object after apiVersion and kind
	}{
		{"move", `[{move: {from: spec.a, to: spec.b}}]`, `"spec":{"a":1,"c":2}`, `"spec":{"b":1,"c":2}`, ""},
		{"move into a nested object", `[{move: {from: spec.diameter, to: spec.size.diameter}}]`,
			`"spec":{"diameter":5}`, `"spec":{"size":{"diameter":5}}`, ""},
		{"move out of a nested object removes it when empty", `[{move: {from: spec.dims.d, to: spec.d}}]`,
			`"spec":{"dims":{"d":5}}`, `"spec":{"d":5}`, ""},
		{"move out of a nested object keeps what is left", `[{move: {from: spec.dims.d, to: spec.d}}]`,
			`"spec":{"dims":{"d":5,"w":1}}`, `"spec":{"dims":{"w":1},"d":5}`, ""},
		{"move keeps top-level objects", `[{move: {from: spec.a, to: status.a}}]`,
			`"spec":{"a":1}`, `"spec":{},"status":{"a":1}`, `"spec":{"a":1},"status":{}`},
		{"move of an absent field", `[{move: {from: spec.a, to: spec.b}}]`, `"spec":{"c":1}`, `"spec":{"c":1}`, ""},
		{"move to a key with dots", `[{move: {from: spec.note, to: metadata.annotations.example\.com/note}}]`,
			`"metadata":{"name":"n"},"spec":{"note":"hi"}`, `"metadata":{"name":"n","annotations":{"example.com/note":"hi"}},"spec":{}`, ""},
		{"move of numeric keys", `[{move: {from: spec.ports.80, to: spec.named.80}}]`,
			`"spec":{"ports":{"80":"http","443":"https"}}`, `"spec":{"ports":{"443":"https"},"named":{"80":"http"}}`, ""},
		{"copy", `[{copy: {from: spec.a, to: spec.b}}]`, `"spec":{"a":{"x":1}}`, `"spec":{"a":{"x":1},"b":{"x":1}}`, ""},
		{"set", `[{set: {path: spec.mode, value: {fast: true}}}]`, `"spec":{}`, `"spec":{"mode":{"fast":true}}`, ""},
		{"set replaces", `[{set: {path: spec.mode, value: slow}}]`, `"spec":{"mode":"x"}`, `"spec":{"mode":"slow"}`, `"spec":{}`},
		{"default when absent", `[{default: {path: spec.n, value: 3}}]`, `"spec":{}`, `"spec":{"n":3}`, ""},
		{"default when present", `[{default: {path: spec.n, value: 3}}]`, `"spec":{"n":4}`, `"spec":{"n":4}`, ""},
		{"default equal to the value", `[{default: {path: spec.n, value: 3}}]`, `"spec":{"n":3}`, `"spec":{"n":3}`, `"spec":{}`},
		{"delete", `[{delete: {path: spec.old}}]`, `"spec":{"old":1,"a":2}`, `"spec":{"a":2}`, `"spec":{"a":2}`},
		{"wrap a scalar", `[{wrap: {from: spec.outlet, to: spec.outlets}}]`, `"spec":{"outlet":"north"}`, `"spec":{"outlets":["north"]}`, ""},
		{"wrap an object in place", `[{wrap: {from: spec.port, to: spec.port}}]`, `"spec":{"port":{"n":1}}`, `"spec":{"port":[{"n":1}]}`, ""},
		{"unwrap", `[{unwrap: {from: spec.outlets, to: spec.outlet}}]`, `"spec":{"outlets":["a","b"]}`, `"spec":{"outlet":"a"}`, `"spec":{"outlets":["a"]}`},
		{"unwrap an empty list", `[{unwrap: {from: spec.outlets, to: spec.outlet}}]`, `"spec":{"outlets":[]}`, `"spec":{}`, `"spec":{}`},
		{"unwrap a scalar", `[{unwrap: {from: spec.outlets, to: spec.outlet}}]`, `"spec":{"outlets":"a"}`, `"spec":{"outlet":"a"}`, `"spec":{"outlets":["a"]}`},
		{"split", `[{split: {from: spec.tags, to: spec.tags, separator: ","}}]`, `"spec":{"tags":"a,b,,c"}`, `"spec":{"tags":["a","b","","c"]}`, ""},
		{"split the empty string", `[{split: {from: spec.tags, to: spec.list, separator: ";"}}]`, `"spec":{"tags":""}`, `"spec":{"list":[]}`, ""},
		{"split a number", `[{split: {from: spec.tags, to: spec.list, separator: ";"}}]`, `"spec":{"tags":5}`, `"spec":{"list":5}`, ""},
		{"join", `[{join: {from: spec.tags, to: spec.csv, separator: ", "}}]`, `"spec":{"tags":["a","b"]}`, `"spec":{"csv":"a, b"}`, ""},
		{"join items that are not strings", `[{join: {from: spec.tags, to: spec.csv, separator: "|"}}]`, `"spec":{"tags":["a",1,true]}`, `"spec":{"csv":"a|1|true"}`, `"spec":{"tags":["a","1","true"]}`},
		{"mapValues", `[{mapValues: {path: spec.material, values: {steel: Steel, copper: Copper}}}]`, `"spec":{"material":"steel"}`, `"spec":{"material":"Steel"}`, ""},
		{"mapValues leaves other values", `[{mapValues: {path: spec.material, values: {steel: Steel}}}]`, `"spec":{"material":"wood"}`, `"spec":{"material":"wood"}`, ""},
		{"mapValues swaps", `[{mapValues: {path: spec.side, values: {left: right, right: left}}}]`, `"spec":{"side":"left"}`, `"spec":{"side":"right"}`, ""},
		{"coerce integer to number", `[{coerce: {path: spec.p, to: number, from: integer}}]`, `"spec":{"p":5}`, `"spec":{"p":5}`, ""},
		{"coerce number to integer rounds", `[{coerce: {path: spec.p, to: integer, from: number}}]`, `"spec":{"p":2.5}`, `"spec":{"p":3}`, `"spec":{"p":3}`},
		{"coerce negative number to integer", `[{coerce: {path: spec.p, to: integer, from: number}}]`, `"spec":{"p":-2.4e0}`, `"spec":{"p":-2}`, `"spec":{"p":-2}`},
		{"coerce string to integer", `[{coerce: {path: spec.p, to: integer, from: string}}]`, `"spec":{"p":"12"}`, `"spec":{"p":12}`, ""},
		{"coerce string to number keeps the text", `[{coerce: {path: spec.p, to: number, from: string}}]`, `"spec":{"p":"2.50"}`, `"spec":{"p":2.50}`, ""},
		{"coerce number to string", `[{coerce: {path: spec.p, to: string, from: number}}]`, `"spec":{"p":2.5}`, `"spec":{"p":"2.5"}`, ""},
		{"coerce boolean to string", `[{coerce: {path: spec.p, to: string, from: boolean}}]`, `"spec":{"p":true}`, `"spec":{"p":"true"}`, ""},
		{"coerce string to boolean", `[{coerce: {path: spec.p, to: boolean, from: string}}]`, `"spec":{"p":"false"}`, `"spec":{"p":false}`, ""},
		{"coerce boolean to integer", `[{coerce: {path: spec.p, to: integer, from: boolean}}]`, `"spec":{"p":true}`, `"spec":{"p":1}`, ""},
		{"coerce what cannot be", `[{coerce: {path: spec.p, to: integer, from: string}}]`, `"spec":{"p":"abc"}`, `"spec":{"p":"abc"}`, ""},
		{"coerce without from leaves the way back", `[{coerce: {path: spec.p, to: string}}]`, `"spec":{"p":1}`, `"spec":{"p":"1"}`, `"spec":{"p":"1"}`},
		{"toAnnotation", `[{toAnnotation: {from: spec.note, key: example.com/note}}]`,
			`"metadata":{"name":"n","annotations":{"a":"b"}},"spec":{"note":"hi"}`, `"metadata":{"name":"n","annotations":{"a":"b","example.com/note":"hi"}},"spec":{}`, ""},
		{"toAnnotation of an object", `[{toAnnotation: {from: spec.cfg, key: cfg}}]`,
			`"metadata":{"name":"n"},"spec":{"cfg":{"a": [1, 2]}}`, `"metadata":{"name":"n","annotations":{"cfg":"{\"a\":[1,2]}"}},"spec":{}`, `"metadata":{"name":"n"},"spec":{"cfg":"{\"a\":[1,2]}"}`},
		{"toLabel", `[{toLabel: {from: spec.tier, key: app.kubernetes.io/tier}}]`,
			`"metadata":{"name":"n"},"spec":{"tier":"web"}`, `"metadata":{"name":"n","labels":{"app.kubernetes.io/tier":"web"}},"spec":{}`, ""},
		{"fromLabel", `[{fromLabel: {key: tier, to: spec.tier}}]`,
			`"metadata":{"name":"n","labels":{"tier":"web","a":"b"}}`, `"metadata":{"name":"n","labels":{"a":"b"}},"spec":{"tier":"web"}`,
			`"metadata":{"name":"n","labels":{"tier":"web","a":"b"}},"spec":{}`},
		{"forEach", `[{forEach: {path: spec.joints, rules: [{move: {from: type, to: kind}}, {mapValues: {path: kind, values: {elbow: Elbow}}}]}}]`,
			`"spec":{"joints":[{"type":"elbow","angle":90},{"angle":45},{"type":"tee"}]}`,
			`"spec":{"joints":[{"kind":"Elbow","angle":90},{"angle":45},{"kind":"tee"}]}`, ""},
		{"forEach on the items themselves", `[{forEach: {path: spec.modes, rules: [{mapValues: {path: "", values: {r: Read, w: Write}}}]}}]`,
			`"spec":{"modes":["r","w","x"]}`, `"spec":{"modes":["Read","Write","x"]}`, ""},
		{"forEach on no list", `[{forEach: {path: spec.modes, rules: [{move: {from: a, to: b}}]}}]`, `"spec":{"modes":{"a":1}}`, `"spec":{"modes":{"a":1}}`, ""},
		{"rules are inverted in reverse order", `[{move: {from: spec.m, to: spec.material}}, {mapValues: {path: spec.material, values: {a: A}}}, {wrap: {from: spec.material, to: spec.materials}}]`,
			`"spec":{"m":"a"}`, `"spec":{"materials":["A"]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := parseRules(t, v1ToHub(tt.rules))
			in := thing("v1", tt.in)
			hub, err := r.Convert(in, "v1", "v2")
			if err != nil {
				t.Fatalf("v1 → v2: %v", err)
			}
			jsoneq.Assert(t, hub, thing("v2", tt.hub))
			back, err := r.Convert(hub, "v2", "v1")
			if err != nil {
				t.Fatalf("v2 → v1: %v", err)
			}
			want := tt.back
			if want == "" {
				want = tt.in
			}
			jsoneq.Assert(t, back, thing("v1", want))
		})
	}
}
