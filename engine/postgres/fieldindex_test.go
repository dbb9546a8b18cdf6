package postgres_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// withSpec returns obj with the given spec (JSON) and stored version.
func withSpec(t *testing.T, obj engine.Object, spec, version string) engine.Object {
	t.Helper()
	body, err := sjson.SetRawBytes(obj.Body, "spec", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	obj.Body, obj.StoredVersion = body, version
	return obj
}

func TestListBodyFields(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	for _, o := range []struct{ name, spec, version string }{
		{"a", `{"color":"red","size":3,"on":true}`, "v1"},
		{"b", `{"color":"blue","size":3.0,"on":false}`, "v1"},
		{"c", `{"color":"","size":30}`, "v1"},
		{"d", `{"color":null}`, "v1"},
		{"e", `{"color":` + strconv.Quote(injection) + `}`, "v1"},
		{"f", `{"colour":"red"}`, "v0"}, // an older version: the field lies elsewhere
	} {
		mustCreate(t, s, withSpec(t, newObject(pipes, "default", o.name, nil), o.spec, o.version))
	}
	mustCreate(t, s, withSpec(t, newObject(valves, "default", "v", nil), `{"color":"red"}`, "v1"))
	field := func(path string, op engine.Operator, value string) []engine.FieldRequirement {
		return []engine.FieldRequirement{{Path: path, Operator: op, Value: value}}
	}
	tests := []struct {
		name    string
		fields  []engine.FieldRequirement
		version string
		want    []string
	}{
		{"equals", field("spec.color", engine.OpEquals, "red"), "", []string{"a"}},
		{"equals, other versions pass", field("spec.color", engine.OpEquals, "red"), "v1", []string{"a", "f"}},
		{"not equals matches missing", field("spec.color", engine.OpNotEquals, "red"), "", []string{"b", "c", "d", "e", "f"}},
		{"empty matches missing and null", field("spec.color", engine.OpEquals, ""), "", []string{"c", "d", "f"}},
		{"not empty", field("spec.color", engine.OpNotEquals, ""), "", []string{"a", "b", "e"}},
		{"integer as text, 3.0 too", field("spec.size", engine.OpEquals, "3"), "", []string{"a", "b"}},
		{"integer not equals", field("spec.size", engine.OpNotEquals, "3"), "", []string{"c", "d", "e", "f"}},
		{"boolean", field("spec.on", engine.OpEquals, "true"), "", []string{"a"}},
		{"boolean not equals", field("spec.on", engine.OpNotEquals, "true"), "", []string{"b", "c", "d", "e", "f"}},
		{"injection value", field("spec.color", engine.OpEquals, injection), "", []string{"e"}},
		{"injection path", field(`spec.color') OR true --`, engine.OpEquals, "red"), "", nil},
		{"all terms hold", append(field("spec.size", engine.OpEquals, "3"), field("spec.on", engine.OpEquals, "false")...), "", []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := listKeys(t, s, engine.ListOptions{Resource: pipes, BodyFields: tt.fields, BodyFieldsVersion: tt.version})
			if err != nil {
				t.Fatal(err)
			}
			if want := prefixed("default/", tt.want); !slices.Equal(got, want) {
				t.Errorf("got %q; want %q", got, want)
			}
		})
	}
}

// TestListBodyFieldsChanged checks body fields on both parts of a list: a
// list at a past resourceVersion reads the changed objects' earlier bodies
// from the log.
func TestListBodyFieldsChanged(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	a := mustCreate(t, s, withSpec(t, newObject(pipes, "default", "a", nil), `{"color":"red"}`, "v1"))
	b := mustCreate(t, s, withSpec(t, newObject(pipes, "default", "b", nil), `{"color":"blue"}`, "v1"))
	before := strconv.FormatInt(b.ResourceVersion, 10)
	for _, u := range []struct {
		obj   engine.Object
		color string
	}{{a, `"green"`}, {b, `"red"`}} {
		next := withSpec(t, u.obj, `{"color":`+u.color+`}`, "v1")
		if _, err := s.Update(context.Background(), next); err != nil {
			t.Fatal(err)
		}
	}
	red := []engine.FieldRequirement{{Path: "spec.color", Operator: engine.OpEquals, Value: "red"}}
	notRed := []engine.FieldRequirement{{Path: "spec.color", Operator: engine.OpNotEquals, Value: "red"}}
	tests := []struct {
		name   string
		fields []engine.FieldRequirement
		rv     string
		want   []string
	}{
		{"now", red, "", []string{"b"}},
		{"before the updates", red, before, []string{"a"}},
		{"not equals before the updates", notRed, before, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := engine.ListOptions{Resource: pipes, BodyFields: tt.fields, ResourceVersion: tt.rv}
			if tt.rv != "" {
				opts.ResourceVersionMatch = engine.MatchExact
			}
			got, _, err := listKeys(t, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := prefixed("default/", tt.want); !slices.Equal(got, want) {
				t.Errorf("got %q; want %q", got, want)
			}
		})
	}
}

// TestEnsureFieldIndexes checks that making the indexes is idempotent, even
// from several callers at once, and that a selective equality on a body
// field uses its index in the unchanged part.
func TestEnsureFieldIndexes(t *testing.T) {
	url := pgtest.Open(t)
	populate(t, url, 20000)
	execSQL(t, url, `UPDATE objects SET body = jsonb_set(body, '{spec,color}', to_jsonb('c' || (substr(name, 2)::int % 1000)))`,
		"VACUUM ANALYZE objects",
		// A log as long as the objects, as in TestListPlans.
		`INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version)
		SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version FROM objects`, "ANALYZE events")
	s := openStore(t, url)
	paths := []string{"spec.color", "spec.size", `spec.o'dd\path`}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := s.EnsureFieldIndexes(context.Background(), pipes, paths); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.EnsureFieldIndexes(context.Background(), pipes, paths); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'objects_field_%'`); n != int64(len(paths)) {
		t.Errorf("%d field indexes; want %d", n, len(paths))
	}
	// A cancelled build leaves an invalid index behind: it is rebuilt.
	execSQL(t, url, `UPDATE pg_index SET indisvalid = false WHERE indexrelid IN
		(SELECT indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'objects_field_%')`)
	if err := s.EnsureFieldIndexes(context.Background(), pipes, paths); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relname LIKE 'objects_field_%' AND i.indisvalid`); n != int64(len(paths)) {
		t.Errorf("%d valid field indexes after a rebuild; want %d", n, len(paths))
	}
	execSQL(t, url, "ANALYZE objects")
	opts := engine.ListOptions{Resource: pipes, BodyFields: []engine.FieldRequirement{{Path: "spec.color", Operator: engine.OpEquals, Value: "c7"}}}
	plans, err := postgres.ListPlans(context.Background(), s, opts, 20000)
	if err != nil {
		t.Fatal(err)
	}
	// Custom plans only, as List runs them (see listTxOptions).
	if len(plans) != 2 || !strings.Contains(plans[0].Text, "events_pkey") || strings.Contains(plans[0].Text, "Seq Scan on events") {
		t.Errorf("the changed part does not use the log's primary key: %+v", plans)
	}
	if len(plans) != 2 || !strings.Contains(plans[1].Text, "objects_field_") || strings.Contains(plans[1].Text, "Seq Scan on objects") {
		t.Errorf("the unchanged part does not use the field index: %+v", plans)
	}
	got, _, err := listKeys(t, s, opts)
	if err != nil || len(got) != 20 {
		t.Errorf("listed %d objects (%v); want 20", len(got), err)
	}
}
