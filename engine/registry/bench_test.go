package registry

import (
	"fmt"
	"testing"
)

// benchKinds is how many definitions through the API the benchmarks hold,
// as the kinds phase of cmd/dynapi-bench creates.
const benchKinds = 1000

// benchCRD is a CustomResourceDefinition of a kind of its own, with a
// schema of its own (a schema is compiled once whoever declares it).
func benchCRD(i int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",`+
		`"metadata":{"name":"gadget%[1]ds.g%[2]d.bench.example.com"},`+
		`"spec":{"group":"g%[2]d.bench.example.com","names":{"kind":"Gadget%[1]d","plural":"gadget%[1]ds"},"scope":"Namespaced",`+
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`+
		`{"type":"object","properties":{"spec":{"type":"object","properties":{"field%[1]d":{"type":"integer","minimum":1}}}}}}}]}}`,
		i, i/10)
}

// BenchmarkLoadOneMore is the load that serves one more definition
// created through the API beside benchKinds others: what the CRD
// controller's hand costs for each change at that size.
func BenchmarkLoadOneMore(b *testing.B) {
	defs := map[string][]byte{}
	for i := range benchKinds {
		defs[fmt.Sprint(i)] = benchCRD(i)
	}
	prev, problems := LoadWith(mapFS(nil, nil), nil, LoadOptions{APIDefinitions: defs})
	if len(problems) > 0 {
		b.Fatalf("problems:\n%s", problemList(problems))
	}
	b.ReportAllocs()
	for b.Loop() {
		defs["more"] = benchCRD(benchKinds)
		LoadWith(mapFS(nil, nil), nil, LoadOptions{Previous: prev, APIDefinitions: defs})
	}
}
