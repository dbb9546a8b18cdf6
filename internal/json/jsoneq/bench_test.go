package jsoneq

import (
	"strings"
	"testing"
)

// The documents of an update: an object as stored, the same object with
// its members in another order, one with a new resourceVersion, and one
// whose spec changed at the end.
var (
	stored = []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w-1","namespace":"default",` +
		`"uid":"6f1c9e5a-0000-4000-8000-c8ce1068c4cd","resourceVersion":"42","generation":1,"creationTimestamp":"2026-11-22T05:00:00Z",` +
		`"labels":{"group":"g7","tier":"front","app":"bench"}},"spec":{"color":"red","size":3,"tags":["a","b","c"],` +
		`"data":"` + strings.Repeat("x", 900) + `"}}`)
	reordered = []byte(`{"kind":"Widget","spec":{"size":3,"data":"` + strings.Repeat("x", 900) + `","color":"red","tags":["a","b","c"]},` +
		`"apiVersion":"shop.example.com/v1","metadata":{"namespace":"default","name":"w-1",` +
		`"uid":"6f1c9e5a-0000-4000-8000-c8ce1068c4cd","resourceVersion":"42","generation":1,"creationTimestamp":"2026-11-22T05:00:00Z",` +
		`"labels":{"tier":"front","group":"g7","app":"bench"}}}`)
	bumped  = []byte(strings.Replace(string(stored), `"resourceVersion":"42"`, `"resourceVersion":"43"`, 1))
	changed = []byte(strings.Replace(string(stored), `"tags":["a","b","c"]`, `"tags":["a","b","d"]`, 1))
)

func BenchmarkEqual(b *testing.B) {
	metadata := Options{Ignore: []string{"metadata"}}
	tests := []struct {
		name  string
		equal func(a, b []byte) bool
		a, b  []byte
		want  bool
	}{
		{"same text", Equal, stored, append([]byte(nil), stored...), true},
		{"same order, ignoring metadata", metadata.Equal, stored, append([]byte(nil), stored...), true},
		{"new resourceVersion, ignoring metadata", metadata.Equal, stored, bumped, true},
		{"reordered", Equal, stored, reordered, true},
		{"reordered, ignoring metadata", metadata.Equal, stored, reordered, true},
		{"changed", Equal, stored, changed, false},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			if tt.equal(tt.a, tt.b) != tt.want {
				b.Fatalf("want %v", tt.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				tt.equal(tt.a, tt.b)
			}
		})
	}
}
