package schema

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// benchObject compiles the widget schema and loads one of its objects,
// compacted as clients send it.
func benchObject(b *testing.B, file string) (*Schema, []byte) {
	b.Helper()
	s, err := Compile(readFile(b, "testdata/widget/schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	var obj bytes.Buffer
	if err := json.Compact(&obj, readFile(b, file)); err != nil {
		b.Fatal(err)
	}
	return s, obj.Bytes()
}

// BenchmarkWritePath measures what every write pays: Prune, Default and
// Validate, on a ~1.2 KB object that needs no change, and on one that
// needs both pruning and defaults.
func BenchmarkWritePath(b *testing.B) {
	for _, file := range []string{"testdata/widget/valid/full.json", "testdata/widget/pipeline/unknown-and-defaults.json"} {
		s, obj := benchObject(b, file)
		b.Run(filepath.Base(file), func(b *testing.B) {
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
		})
	}
}

// BenchmarkSteps measures each step alone on the object that needs no change.
func BenchmarkSteps(b *testing.B) {
	s, obj := benchObject(b, "testdata/widget/valid/full.json")
	steps := []struct {
		name string
		run  func()
	}{
		{"Prune", func() { s.Prune(obj) }},
		{"Default", func() { _, _ = s.Default(obj) }},
		{"DefaultStored", func() { s.DefaultStored(obj) }},
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
