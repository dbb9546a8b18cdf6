package schema

import (
	"bytes"
	"encoding/json"
	"testing"
)

// benchObject loads the ~1.2 KB widget object, compacted as clients send it.
func benchObject(b *testing.B) (*Schema, []byte) {
	b.Helper()
	s, err := Compile(readFile(b, "testdata/widget/schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	var obj bytes.Buffer
	if err := json.Compact(&obj, readFile(b, "testdata/widget/valid/full.json")); err != nil {
		b.Fatal(err)
	}
	return s, obj.Bytes()
}

// BenchmarkWritePath measures what every write pays: Prune, Default and
// Validate of a ~1.2 KB object that needs no change.
func BenchmarkWritePath(b *testing.B) {
	s, obj := benchObject(b)
	b.SetBytes(int64(len(obj)))
	b.ReportAllocs()
	for b.Loop() {
		pruned, _ := s.Prune(obj)
		defaulted, err := s.Default(pruned)
		if err != nil {
			b.Fatal(err)
		}
		if errs := s.Validate(defaulted); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkSteps measures each step alone on the same object.
func BenchmarkSteps(b *testing.B) {
	s, obj := benchObject(b)
	steps := []struct {
		name string
		run  func()
	}{
		{"Prune", func() { s.Prune(obj) }},
		{"Default", func() { _, _ = s.Default(obj) }},
		{"Validate", func() { s.Validate(obj) }},
	}
	for _, step := range steps {
		b.Run(step.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				step.run()
			}
		})
	}
}
