package postgres_test

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/tidwall/gjson"
)

// listKeys lists with opts and returns "namespace/name" of each object
// (prefixed by "resource:" when opts.Resource is zero).
func listKeys(t *testing.T, s *postgres.Store, opts engine.ListOptions) ([]string, engine.ListMeta, error) {
	t.Helper()
	var keys []string
	meta, err := s.List(context.Background(), opts, func(obj engine.Object) error {
		if bodyRV(obj.Body) != strconv.FormatInt(obj.ResourceVersion, 10) {
			t.Errorf("%v: body rv %q, rv %d", obj.Key, bodyRV(obj.Body), obj.ResourceVersion)
		}
		if gjson.GetBytes(obj.Body, "metadata.name").String() != obj.Key.Name {
			t.Errorf("%v: body of another object: %s", obj.Key, obj.Body)
		}
		key := obj.Key.Namespace + "/" + obj.Key.Name
		if opts.Resource == (engine.GroupResource{}) {
			key = obj.Key.Resource.String() + ":" + key
		}
		keys = append(keys, key)
		return nil
	})
	return keys, meta, err
}

const injection = `'); drop table objects; --`

func TestListLabelSelectors(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	for name, labels := range map[string]map[string]string{
		"a": {"app": "web", "tier": "front", "app.kubernetes.io/name": "dynapi", "num": "10"},
		"b": {"app": "db", "tier": "back", "num": "-3"},
		"c": {"app": "web", "num": "+7"},
		"d": nil,
		"e": {"app": injection, "num": "99999999999999999999"},
	} {
		mustCreate(t, s, newObject(pipes, "default", name, labels))
	}
	mustCreate(t, s, newObject(valves, "default", "v", map[string]string{"app": "web"}))
	req := func(key string, op engine.Operator, values ...string) engine.Requirement {
		return engine.Requirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name   string
		labels []engine.Requirement
		want   []string
	}{
		{"equals", []engine.Requirement{req("app", engine.OpEquals, "web")}, []string{"a", "c"}},
		{"not equals matches missing", []engine.Requirement{req("app", engine.OpNotEquals, "web")}, []string{"b", "d", "e"}},
		{"in", []engine.Requirement{req("app", engine.OpIn, "web", "db")}, []string{"a", "b", "c"}},
		{"in nothing", []engine.Requirement{req("app", engine.OpIn)}, nil},
		{"notin matches missing", []engine.Requirement{req("app", engine.OpNotIn, "web")}, []string{"b", "d", "e"}},
		{"exists", []engine.Requirement{req("tier", engine.OpExists)}, []string{"a", "b"}},
		{"does not exist", []engine.Requirement{req("tier", engine.OpDoesNotExist)}, []string{"c", "d", "e"}},
		{"dotted key", []engine.Requirement{req("app.kubernetes.io/name", engine.OpEquals, "dynapi")}, []string{"a"}},
		{"dotted key exists", []engine.Requirement{req("app.kubernetes.io/name", engine.OpExists)}, []string{"a"}},
		{"dotted key missing", []engine.Requirement{req("app.kubernetes.io/name", engine.OpDoesNotExist)}, []string{"b", "c", "d", "e"}},
		{"prefix of dotted key", []engine.Requirement{req("app.kubernetes.io", engine.OpExists)}, nil},
		{"all terms hold", []engine.Requirement{req("app", engine.OpEquals, "web"), req("tier", engine.OpEquals, "front")}, []string{"a"}},
		{"injection value", []engine.Requirement{req("app", engine.OpEquals, injection)}, []string{"e"}},
		{"injection value in", []engine.Requirement{req("app", engine.OpIn, injection, `"}'`)}, []string{"e"}},
		{"injection key", []engine.Requirement{req(`app') OR true --`, engine.OpExists)}, nil},
		{"quote in key", []engine.Requirement{req(`a"pp`, engine.OpEquals, "web")}, nil},
		{"greater than", []engine.Requirement{req("num", engine.OpGreaterThan, "5")}, []string{"a", "c"}},
		{"less than", []engine.Requirement{req("num", engine.OpLessThan, "0")}, []string{"b"}},
		{"less than skips missing and out of int64", []engine.Requirement{req("num", engine.OpLessThan, "100")}, []string{"a", "b", "c"}},
		{"greater than skips values not integers", []engine.Requirement{req("tier", engine.OpGreaterThan, "-1000")}, nil},
		// More values than the GIN index is asked one by one: compared as
		// text, with the same semantics.
		{"in many", []engine.Requirement{req("app", engine.OpIn, many("web", "db")...)}, []string{"a", "b", "c"}},
		{"notin many matches missing", []engine.Requirement{req("app", engine.OpNotIn, many("web")...)}, []string{"b", "d", "e"}},
		{"notin many of a missing key", []engine.Requirement{req("tier", engine.OpNotIn, many("front")...)}, []string{"b", "c", "d", "e"}},
		{"in many injection value", []engine.Requirement{req("app", engine.OpIn, many(injection)...)}, []string{"e"}},
		{"in many injection key", []engine.Requirement{req(`app') OR true --`, engine.OpIn, many("web")...)}, nil},
		{"injection key compared", []engine.Requirement{req(`num') OR true --`, engine.OpGreaterThan, "1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := listKeys(t, s, engine.ListOptions{Resource: pipes, Labels: tt.labels})
			if err != nil {
				t.Fatal(err)
			}
			if want := prefixed("default/", tt.want); !slices.Equal(got, want) {
				t.Errorf("got %q; want %q", got, want)
			}
		})
	}
	if _, err := s.Get(context.Background(), engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "a"}); err != nil {
		t.Fatalf("objects after injection attempts: %v", err)
	}
}

// many is values followed by 200 values that no object has.
func many(values ...string) []string {
	for i := range 200 {
		values = append(values, "absent-"+strconv.Itoa(i))
	}
	return values
}

func TestListBadSelectors(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name    string
		opts    engine.ListOptions
		message string
	}{
		{"equals two values", engine.ListOptions{Labels: []engine.Requirement{{Key: "a", Operator: engine.OpEquals, Values: []string{"1", "2"}}}},
			`label selector "a" =: exactly one value required`},
		{"unknown label operator", engine.ListOptions{Labels: []engine.Requirement{{Key: "a", Operator: "~", Values: []string{"1"}}}},
			`label selector "a": unknown operator "~"`},
		{"greater than a word", engine.ListOptions{Labels: []engine.Requirement{{Key: "a", Operator: engine.OpGreaterThan, Values: []string{"x"}}}},
			`label selector "a" gt: exactly one integer value required`},
		{"unsupported field", engine.ListOptions{Fields: []engine.FieldRequirement{{Path: "spec.size", Operator: engine.OpEquals, Value: "3"}}},
			"field label not supported: spec.size"},
		{"unsupported field operator", engine.ListOptions{Fields: []engine.FieldRequirement{{Path: "metadata.name", Operator: engine.OpIn, Value: "3"}}},
			`operator "in" not supported for field selectors`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Resource = pipes
			_, _, err := listKeys(t, s, tt.opts)
			if e := wantCode(t, err, engine.CodeBadRequest); e.Message != tt.message {
				t.Errorf("message %q; want %q", e.Message, tt.message)
			}
		})
	}
}

func TestListFieldSelectors(t *testing.T) {
	s := newStore(t)
	for _, ns := range []string{"default", "other"} {
		createNamespace(t, s, ns)
		for _, name := range []string{"a", "b"} {
			mustCreate(t, s, newObject(pipes, ns, name, map[string]string{"app": name}))
		}
	}
	field := func(path string, op engine.Operator, value string) engine.FieldRequirement {
		return engine.FieldRequirement{Path: path, Operator: op, Value: value}
	}
	tests := []struct {
		name string
		opts engine.ListOptions
		want []string
	}{
		{"name", engine.ListOptions{Fields: []engine.FieldRequirement{field("metadata.name", engine.OpEquals, "a")}},
			[]string{"default/a", "other/a"}},
		{"not name", engine.ListOptions{Fields: []engine.FieldRequirement{field("metadata.name", engine.OpNotEquals, "a")}},
			[]string{"default/b", "other/b"}},
		{"namespace", engine.ListOptions{Fields: []engine.FieldRequirement{field("metadata.namespace", engine.OpEquals, "other")}},
			[]string{"other/a", "other/b"}},
		{"not namespace", engine.ListOptions{Fields: []engine.FieldRequirement{field("metadata.namespace", engine.OpNotEquals, "other")}},
			[]string{"default/a", "default/b"}},
		{"name in namespace", engine.ListOptions{Namespace: "other", Fields: []engine.FieldRequirement{field("metadata.name", engine.OpEquals, "b")}},
			[]string{"other/b"}},
		{"with labels", engine.ListOptions{
			Fields: []engine.FieldRequirement{field("metadata.namespace", engine.OpEquals, "default")},
			Labels: []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{"b"}}}},
			[]string{"default/b"}},
		{"injection", engine.ListOptions{Fields: []engine.FieldRequirement{field("metadata.name", engine.OpEquals, injection)}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Resource = pipes
			got, _, err := listKeys(t, s, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestListPagination(t *testing.T) {
	s := newStore(t)
	var all []string
	for _, ns := range []string{"ns-a", "ns-B", "ns-c"} {
		createNamespace(t, s, ns)
		// Byte order, as etcd sorts keys: "B" < "a" < "a-1" < "a.1" < "aa".
		for _, name := range []string{"a", "B", "a-1", "a.1", "aa", "z", "m0", "m1", "Z"} {
			mustCreate(t, s, newObject(pipes, ns, name, nil))
			all = append(all, ns+"/"+name)
		}
	}
	slices.Sort(all)
	full, meta, err := listKeys(t, s, engine.ListOptions{Resource: pipes})
	if err != nil || !slices.Equal(full, all) || meta.Continue != "" {
		t.Fatalf("full list = %q, %+v, %v; want %q", full, meta, err, all)
	}
	for _, limit := range []int64{1, 2, 5, 26, 27, 28, 100} {
		t.Run("limit "+strconv.FormatInt(limit, 10), func(t *testing.T) {
			if got := paginate(t, s, engine.ListOptions{Resource: pipes, Limit: limit}, meta.ResourceVersion); !slices.Equal(got, all) {
				t.Errorf("pages = %q; want %q", got, all)
			}
		})
	}
}

// paginate lists every page of opts and checks that pages honour the limit
// and carry the first page's resourceVersion, which must be at least minRV.
func paginate(t *testing.T, s *postgres.Store, opts engine.ListOptions, minRV int64) []string {
	t.Helper()
	var got []string
	var listRV int64
	for page := 0; ; page++ {
		keys, meta, err := listKeys(t, s, opts)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if page == 0 {
			listRV = meta.ResourceVersion
		}
		if int64(len(keys)) > opts.Limit || meta.ResourceVersion != listRV || listRV < minRV {
			t.Fatalf("page %d: %d keys, rv %d (first page rv %d, min %d)", page, len(keys), meta.ResourceVersion, listRV, minRV)
		}
		got = append(got, keys...)
		if meta.Continue == "" {
			return got
		}
		if int64(len(keys)) != opts.Limit {
			t.Fatalf("page %d: short page %d with a continue token", page, len(keys))
		}
		opts.Continue = meta.Continue
	}
}

func TestListAllResourcesInNamespace(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "a")
	createNamespace(t, s, "b")
	for _, obj := range []engine.Object{
		newObject(valves, "a", "x", nil),
		newObject(pipes, "a", "x", nil),
		newObject(pipes, "a", "y", nil),
		newObject(pipes, "b", "x", nil),
	} {
		mustCreate(t, s, obj)
	}
	want := []string{"pipes.example.com:a/x", "valves.example.com:a/x", "pipes.example.com:a/y"}
	got, _, err := listKeys(t, s, engine.ListOptions{Namespace: "a"})
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("list = %q, %v; want %q", got, err, want)
	}
	if got := paginate(t, s, engine.ListOptions{Namespace: "a", Limit: 1}, 0); !slices.Equal(got, want) {
		t.Errorf("pages = %q; want %q", got, want)
	}
	everything, _, err := listKeys(t, s, engine.ListOptions{})
	if wantAll := append([]string{"namespaces:/a", "namespaces:/b"}, append(want, "pipes.example.com:b/x")...); err != nil || !slices.Equal(everything, wantAll) {
		t.Errorf("list everything = %q, %v; want %q", everything, err, wantAll)
	}
}

// TestListContinueAfterWrites checks that later pages keep the first
// page's resourceVersion and show the state at it: an object created after
// the first page is not listed.
func TestListContinueAfterWrites(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	for _, name := range []string{"a", "b"} {
		mustCreate(t, s, newObject(pipes, "default", name, nil))
	}
	keys, first, err := listKeys(t, s, engine.ListOptions{Resource: pipes, Limit: 1})
	if err != nil || !slices.Equal(keys, []string{"default/a"}) {
		t.Fatalf("first page = %q, %v", keys, err)
	}
	mustCreate(t, s, newObject(pipes, "default", "c", nil))
	keys, next, err := listKeys(t, s, engine.ListOptions{Resource: pipes, Limit: 5, Continue: first.Continue})
	if err != nil || !slices.Equal(keys, []string{"default/b"}) || next.ResourceVersion != first.ResourceVersion || next.Continue != "" {
		t.Fatalf("second page = %q, %+v, %v; want b at rv %d", keys, next, err, first.ResourceVersion)
	}
}

func TestListBadContinue(t *testing.T) {
	s := newStore(t)
	b64 := base64.RawURLEncoding.EncodeToString
	for _, token := range []string{"!!!", b64([]byte("not json")), b64([]byte(`{"rv":0,"name":"a"}`)), b64([]byte(`{"rv":5}`))} {
		t.Run(token, func(t *testing.T) {
			_, _, err := listKeys(t, s, engine.ListOptions{Resource: pipes, Continue: token})
			wantCode(t, err, engine.CodeBadRequest)
		})
	}
}

func TestListStopsOnCallbackError(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	for _, name := range []string{"a", "b", "c"} {
		mustCreate(t, s, newObject(pipes, "default", name, nil))
	}
	stop := errors.New("client went away")
	calls := 0
	_, err := s.List(context.Background(), engine.ListOptions{Resource: pipes}, func(engine.Object) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("List = %v after %d calls; want the callback's error after 1", err, calls)
	}
}

// prefixed returns each of names after prefix.
func prefixed(prefix string, names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, prefix+n)
	}
	return out
}
