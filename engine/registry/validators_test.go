package registry

import (
	"fmt"
	"testing"

	"github.com/dynapi/dynapi/engine/schema"
)

// A load compiles no schema's validator: each waits for its first use.
// CompileValidators compiles each to check it, as `dynapi check` asks. Not parallel: it counts the
// process's validator compiles.
func TestLoadLeavesValidatorsForFirstUse(t *testing.T) {
	// The property's name differs between the loads: a schema compiled
	// moments ago would be found again, validator and all.
	doc := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"lazies.x.example.com"},` +
		`"spec":{"group":"x.example.com","names":{"kind":"Lazy","plural":"lazies"},"scope":"Namespaced",` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` +
		`{"type":"object","properties":{"spec":{"type":"object","properties":{"%s":{"type":"integer","minimum":1}}}}}}}]}}`
	for _, check := range []bool{false, true} {
		field := fmt.Sprintf("lazy%v", check)
		before := schema.ValidatorCompiles()
		snap, ps := LoadWith(mapFS(nil, nil), nil, LoadOptions{WithoutBuiltins: true, CompileValidators: check,
			APIDefinitions: map[string][]byte{"lazies.x.example.com": fmt.Appendf(nil, doc, field)}})
		if len(ps) > 0 {
			t.Fatalf("problems:\n%s", problemList(ps))
		}
		if got, want := schema.ValidatorCompiles()-before, map[bool]int64{false: 0, true: 1}[check]; got != want {
			t.Errorf("CompileValidators %v: %d validators compiled by the load, want %d", check, got, want)
		}
		s := snap.Resources()[0].Versions[0].Schema
		before = schema.ValidatorCompiles()
		for range 3 {
			if errs := s.Validate(fmt.Appendf(nil, `{"spec":{%q:0}}`, field)); len(errs) != 1 {
				t.Errorf("Validate = %v, want one error", errs)
			}
		}
		if got := schema.ValidatorCompiles() - before; got != 1 {
			t.Errorf("CompileValidators %v: %d validators compiled by three uses, want 1", check, got)
		}
	}
}
