package resource

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// BenchmarkCompare is the compare stage over a ~1.4 KB Widget as stored
// (jsonb's key order) and the body of a PUT: "spec" changes spec.size, as
// most updates change the spec; "labels" changes only a label.
func BenchmarkCompare(b *testing.B) {
	tags := `"tags":["` + strings.Repeat("t", 64) + strings.Repeat(`","`+strings.Repeat("t", 64), 11) + `"]`
	old := []byte(`{"kind": "Widget", "spec": {"size": 1, "tags": [` + tags[8:] + `, "color": "green", "description": "a widget"}, ` +
		`"metadata": {"uid": "6f1c9e5a-0000-4000-8000-c8ce1068c4cd", "name": "w1", "labels": {"app": "bench", "shard": "1", "bucket": "1"}, ` +
		`"namespace": "default", "generation": 1, "resourceVersion": "42", "creationTimestamp": "2026-11-22T05:00:00Z"}, "apiVersion": "shop.example.com/v1"}`)
	body := func(size, shard string) []byte {
		return []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default",` +
			`"uid":"6f1c9e5a-0000-4000-8000-c8ce1068c4cd","resourceVersion":"42","generation":1,"creationTimestamp":"2026-11-22T05:00:00Z",` +
			`"labels":{"app":"bench","bucket":"1","shard":"` + shard + `"}},"spec":{"color":"green","size":` + size + `,"description":"a widget",` + tags + `}}`)
	}
	for _, c := range []struct{ name, size, shard string }{{"spec", "2", "1"}, {"labels", "1", "2"}} {
		obj := body(c.size, c.shard)
		if !gjson.ValidBytes(obj) || !gjson.ValidBytes(old) {
			b.Fatal("not JSON")
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				compareObjects(obj, old)
			}
		})
	}
}
