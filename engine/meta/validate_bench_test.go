package meta

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkValidate checks the metadata of a typical object (three
// labels, two annotations) as a create and as an update.
func BenchmarkValidate(b *testing.B) {
	old := typicalMeta(b)
	m := *old
	b.Run("create", func(b *testing.B) {
		for b.Loop() {
			if errs := ValidateCreate(&m, true, NameRule(false)); errs != nil {
				b.Fatal(errs)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		for b.Loop() {
			if errs := ValidateUpdate(&m, old, true, NameRule(false)); errs != nil {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkSet writes the metadata of a typical object (three labels, two
// annotations) into a ~1.2 KB body.
func BenchmarkSet(b *testing.B) {
	obj := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"description":"` +
		strings.Repeat("d", 1000) + `"}}`)
	m := typicalMeta(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Set(obj, m); err != nil {
			b.Fatal(err)
		}
	}
}

// typicalMeta is the metadata of a typical object: three labels, two
// annotations.
func typicalMeta(b *testing.B) *metav1.ObjectMeta {
	m, err := Parse([]byte(`{"metadata":{"name":"w1","namespace":"default","uid":"2b0e6a4e-2c1c-4bb8-9d5a-0d6f3c1c1d11",` +
		`"resourceVersion":"42","generation":3,"creationTimestamp":"2024-05-01T10:00:00Z",` +
		`"labels":{"app":"bench","tier":"backend","team":"platform"},` +
		`"annotations":{"example.com/owner":"someone@example.com","example.com/description":"a widget"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	return m
}
