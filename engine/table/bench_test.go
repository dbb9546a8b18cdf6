package table

import (
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
)

// BenchmarkAppendRow writes the row of a 1.2 KB object with typical columns:
// keys, an escaped label key, an index, a filter and an age.
func BenchmarkAppendRow(b *testing.B) {
	obj := readObject(b, "pipe-a")
	columns := []registry.PrinterColumn{
		{Name: "Material", Type: "string", JSONPath: ".spec.material"},
		{Name: "Pressure", Type: "integer", JSONPath: ".spec.pressure"},
		{Name: "App", Type: "string", JSONPath: `.metadata.labels.app\.kubernetes\.io/name`},
		{Name: "First", Type: "string", JSONPath: ".status.conditions[0].type"},
		{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, include := range []string{"None", "Metadata"} {
		b.Run(include, func(b *testing.B) {
			tb, err := New(columns, APIVersionV1, include, now)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(obj)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				dst = tb.AppendRow(dst[:0], obj)
			}
		})
	}
}
