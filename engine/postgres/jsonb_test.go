package postgres

import "testing"

func TestFromJSONB(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"reorders and compacts",
			`{"kind": "Widget", "spec": {"a": [1, 2], "b": "x y"}, "metadata": {"name": "w"}, "apiVersion": "v1"}`,
			`{"apiVersion":"v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":[1,2],"b":"x y"}}`},
		{"keeps spaces and escapes inside strings",
			`{"s": "a, b: \"c d\" \\", "kind": "K"}`,
			`{"kind":"K","s":"a, b: \"c d\" \\"}`},
		{"no type meta", `{"b": 1, "a": {}}`, `{"b":1,"a":{}}`},
		{"empty", `{}`, `{}`},
		{"not an object", `[1, 2]`, `[1,2]`},
		{"unicode", `{"kind": "é ü", "x": "\u0000"}`, `{"kind":"é ü","x":"\u0000"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(fromJSONB([]byte(tt.in))); got != tt.want {
				t.Fatalf("fromJSONB(%s)\n got  %s\n want %s", tt.in, got, tt.want)
			}
		})
	}
}

func BenchmarkFromJSONB(b *testing.B) {
	in := []byte(`{"kind": "Widget", "spec": {"size": 3, "tags": ["a", "b", "c"], "color": "red", "description": "` +
		`a fairly long description of the widget to make the object about a kilobyte in size, repeated: ` +
		`a fairly long description of the widget to make the object about a kilobyte in size"}, "status": {"phase": "Ready"}, ` +
		`"metadata": {"uid": "fea4aa7c-3dcd-4f03-ba5d-57d75396475d", "name": "hello", "labels": {"app": "web", "tier": "front"}, ` +
		`"namespace": "tour", "generation": 1, "resourceVersion": "3", "creationTimestamp": "2026-11-22T00:16:58Z"}, "apiVersion": "shop.example.com/v1"}`)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		fromJSONB(in)
	}
}
