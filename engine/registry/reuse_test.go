package registry

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// uncached returns s without what it compiled: the next load built on it
// compiles every definition again, as every load did before reuse.
func uncached(s *Snapshot) *Snapshot {
	c := *s
	c.built = nil
	return &c
}

func TestLoadSharesUnchangedDefinitions(t *testing.T) {
	t.Parallel()
	api := map[string][]byte{
		"alphas.x.example.com": apiCRD("Alpha", "alphas", "x.example.com"),
		"betas.y.example.com":  apiCRD("Beta", "betas", "y.example.com"),
	}
	prev, ps := LoadWith(mapFS(keepBase.schemas, nil), mapFS(keepBase.conversions, nil), LoadOptions{APIDefinitions: api})
	if len(ps) > 0 {
		t.Fatalf("base problems:\n%s", problemList(ps))
	}
	if len(prev.Resources()) < 5 {
		t.Fatalf("base loaded %v", served(prev))
	}
	changedAPI := map[string][]byte{
		"alphas.x.example.com": api["alphas.x.example.com"],
		"betas.y.example.com":  []byte(strings.Replace(string(api["betas.y.example.com"]), "served: true\n", "served: true\n    deprecated: true\n", 1)),
	}
	next, ps := LoadWith(mapFS(keepBase.schemas, map[string]string{"c/thing.yaml": thing("shortNames: [th]")}),
		mapFS(keepBase.conversions, nil), LoadOptions{Previous: prev, APIDefinitions: changedAPI})
	if len(ps) > 0 {
		t.Fatalf("problems:\n%s", problemList(ps))
	}
	changed := map[string]bool{"things": true, "betas": true}
	for _, r := range next.Resources() {
		p := resourceOf(prev, r.GroupResource())
		if p == nil {
			t.Fatalf("%s: not in the previous snapshot", r.GroupResource())
		}
		if shared := p == r; shared == changed[r.Plural] {
			t.Errorf("%s (%s): shared with the previous snapshot = %v, want %v", r.GroupResource(), r.File, shared, !changed[r.Plural])
		}
		if !changed[r.Plural] && r.Versions[0].Schema != nil && r.Versions[0].Schema != p.Versions[0].Schema {
			t.Errorf("%s: schema compiled again", r.GroupResource())
		}
		if r.Fields == nil || (p == r) != (p.Fields == r.Fields) {
			t.Errorf("%s: Fields %p, previous %p: want its own, bound once per served resource", r.GroupResource(), r.Fields, p.Fields)
		}
	}
}

// A kind whose rules change keeps its compiled versions; rules bind anew.
func TestLoadRebindsChangedRules(t *testing.T) {
	t.Parallel()
	rules := strings.Replace(pipeRules, "    - coerce: {path: spec.pressure, to: number}\n", "", 1)
	prev, next, ps := reload(t, nil, map[string]string{"test.example.com/pipe.yaml": rules}, LoadOptions{WithoutBuiltins: true})
	if len(ps) > 0 {
		t.Fatalf("problems:\n%s", problemList(ps))
	}
	gr := engine.GroupResource{Group: "test.example.com", Resource: "pipes"}
	p, r := resourceOf(prev, gr), resourceOf(next, gr)
	if p == r || p.Versions[0] != r.Versions[0] {
		t.Errorf("pipes: resource shared %v (want false), versions shared %v (want true)", p == r, p.Versions[0] == r.Versions[0])
	}
	if r.Conversion == nil || r.Conversion == p.Conversion {
		t.Errorf("pipes: rules not bound anew")
	}
	if r.Fields == nil || r.Fields == p.Fields {
		t.Errorf("pipes: Fields not bound to the new rules")
	}
}

// Reuse decides conflicts, precedence and what serves on exactly as a load
// that compiles everything again.
func TestLoadReuseDecidesAsBefore(t *testing.T) {
	t.Parallel()
	other := thing("kind: Other")
	steps := []struct {
		name             string
		schemas, rules   map[string]string
		api              map[string][]byte
		wantSomeProblems bool
	}{
		{name: "conflicting plural in a new file that sorts first", schemas: map[string]string{"0/other.yaml": other}, wantSomeProblems: true},
		{name: "the file it conflicts with removed", schemas: map[string]string{"0/other.yaml": other, "c/thing.yaml": ""}},
		{name: "back", schemas: map[string]string{"0/other.yaml": other}, wantSomeProblems: true},
		{name: "names changed into another's", schemas: map[string]string{"c/thing.yaml": thing("shortNames: [gd]")}, wantSomeProblems: true},
		{name: "fixed", schemas: map[string]string{"c/thing.yaml": thing("shortNames: [th]")}},
		{name: "an API definition of a file's names", api: map[string][]byte{
			"things.test.example.com": apiCRD("Thing", "things", "test.example.com"),
		}, wantSomeProblems: true},
		{name: "the file removed: the API definition takes over", schemas: map[string]string{"c/thing.yaml": ""}, api: map[string][]byte{
			"things.test.example.com": apiCRD("Thing", "things", "test.example.com"),
		}},
		{name: "the file back", api: map[string][]byte{
			"things.test.example.com": apiCRD("Thing", "things", "test.example.com"),
		}, wantSomeProblems: true},
		{name: "broken rules", rules: map[string]string{"test.example.com/pipe.yaml": pipeRules + "    - frobnicate: {path: spec.x}\n"}, wantSomeProblems: true},
		{name: "broken file", schemas: map[string]string{"c/thing.yaml": "group: [\n"}, wantSomeProblems: true},
		{name: "all fine", schemas: nil},
	}
	incremental, ps := loadFiles(mapFS(keepBase.schemas, nil), mapFS(keepBase.conversions, nil))
	if len(ps) > 0 {
		t.Fatalf("base problems:\n%s", problemList(ps))
	}
	full := incremental
	for _, s := range steps {
		schemas, rules := mapFS(keepBase.schemas, s.schemas), mapFS(keepBase.conversions, s.rules)
		var incProblems, fullProblems []Problem
		incremental, incProblems = LoadWith(schemas, rules, LoadOptions{Previous: incremental, APIDefinitions: s.api, WithoutBuiltins: true})
		full, fullProblems = LoadWith(schemas, rules, LoadOptions{Previous: uncached(full), APIDefinitions: s.api, WithoutBuiltins: true})
		if got, want := served(incremental), served(full); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: served\n got %v\nwant %v", s.name, got, want)
		}
		if !reflect.DeepEqual(incProblems, fullProblems) {
			t.Errorf("%s: problems\n got %s\nwant %s", s.name, problemList(incProblems), problemList(fullProblems))
		}
		if (len(fullProblems) > 0) != s.wantSomeProblems {
			t.Errorf("%s: problems:\n%s", s.name, problemList(fullProblems))
		}
	}
}

// apiCRD is a CustomResourceDefinition as created through the API.
func apiCRD(kind, plural, group string) []byte {
	doc := crdDoc(plural+"."+group, group, "")
	return []byte(strings.Replace(doc, "{kind: Thing, plural: things}", "{kind: "+kind+", plural: "+plural+"}", 1))
}

// A status write to a definition created through the API costs no compile.
func TestLoadSharesAPIDefinitionAfterStatusWrite(t *testing.T) {
	t.Parallel()
	doc := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"alphas.x.example.com","resourceVersion":"%s"},` +
		`"spec":{"group":"x.example.com","names":{"kind":"Alpha","plural":"alphas"},"scope":"Namespaced",` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]},"status":%s}`
	load := func(prev *Snapshot, rv, status string) *Snapshot {
		snap, ps := LoadWith(mapFS(nil, nil), nil, LoadOptions{Previous: prev, WithoutBuiltins: true,
			APIDefinitions: map[string][]byte{"alphas.x.example.com": []byte(fmt.Sprintf(doc, rv, status))}})
		if len(ps) > 0 {
			t.Fatalf("problems:\n%s", problemList(ps))
		}
		return snap
	}
	prev := load(nil, "1", "{}")
	next := load(prev, "2", `{"conditions":[{"type":"Established","status":"True"}]}`)
	gr := engine.GroupResource{Group: "x.example.com", Resource: "alphas"}
	if resourceOf(prev, gr) == nil || resourceOf(prev, gr) != resourceOf(next, gr) {
		t.Errorf("alphas: not shared after a status write")
	}
}
