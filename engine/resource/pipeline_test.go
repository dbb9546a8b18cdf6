package resource

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// gadgets is the pipeline's test kind (testdata/gadget.yaml): a status
// subresource, spec.color defaulted to red, spec.size at least 1.
var gadgets = engine.GroupResource{Group: "test.example.com", Resource: "gadgets"}

// testStrategy is a strategy whose choices a test sets.
type testStrategy struct {
	CustomResource
	unconditional bool
	causes        []engine.FieldError
	refuseDelete  error
}

func (s testStrategy) AllowUnconditionalUpdate() bool { return s.unconditional }

func (s testStrategy) Validate(*Write) ([]engine.FieldError, []string) {
	return s.causes, []string{"strategy looked"}
}

func (s testStrategy) PrepareForDelete(w *Write) (bool, error) {
	if s.refuseDelete != nil {
		return false, s.refuseDelete
	}
	return s.CustomResource.PrepareForDelete(w)
}

// pipeline is a Service over a memStore, serving gadgets, with one stored
// gadget "g" (spec.size 1, status.phase Ready) unless the test says not.
type pipeline struct {
	t       *testing.T
	service *Service
	store   *memStore
	target  Target
}

func newPipeline(t *testing.T, st Strategy) *pipeline {
	t.Helper()
	snap, problems := registry.Load(os.DirFS("testdata"), os.DirFS("testdata/none"))
	if len(problems) > 0 {
		t.Fatalf("load testdata: %v", problems)
	}
	res, ver, ok := snap.Lookup(gadgets.Group, "v1", gadgets.Resource)
	if !ok {
		t.Fatal("no gadgets in testdata")
	}
	store := newMemStore()
	service := New(store)
	service.Now = func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }
	p := &pipeline{t: t, service: service, store: store, target: Target{Resource: res, Version: ver, Namespace: "ns"}}
	if _, err := service.Create(context.Background(), p.target, []byte(gadget("g", `"size":1`, `"phase":"Ready"`)), WriteOptions{}); err != nil {
		t.Fatalf("create g: %v", err)
	}
	// A create drops the status: set it as a /status write would.
	obj, _ := store.Get(context.Background(), p.target.key("g"))
	obj.Body = []byte(strings.Replace(string(obj.Body), `"spec"`, `"status":{"phase":"Ready"},"spec"`, 1))
	if _, err := store.put(obj); err != nil { // a write of its own, as another process's would be
		t.Fatal(err)
	}
	store.writes = 0
	if st != nil {
		service.Register(gadgets, st)
	}
	return p
}

func gadget(name, spec, status string, meta ...string) string {
	m := `"name":"` + name + `"`
	if len(meta) > 0 {
		m += "," + meta[0]
	}
	return `{"apiVersion":"test.example.com/v1","kind":"Gadget","metadata":{` + m + `},"spec":{` + spec + `},"status":{` + status + `}}`
}

// stored returns the stored body of name ("" when there is none).
// writeBetween is a memStore on which another writer writes, once, right
// after an update of the pipeline's: between the update that removes a
// marked object's last finalizer and the delete that follows it.
type writeBetween struct {
	*memStore
	between func(m *memStore, updated engine.Object)
}

func (w *writeBetween) Update(ctx context.Context, o engine.Object) (engine.Object, error) {
	updated, err := w.memStore.Update(ctx, o)
	if err == nil && w.between != nil {
		w.between(w.memStore, updated)
		w.between = nil
	}
	return updated, err
}

// TestPipelineFinalizedUpdateRace: the update that removes the last
// finalizer of a marked object stands when another writer deletes or
// changes the object before the update's own delete: it answers with the
// object it wrote, as kube-apiserver answers an update whose delete found
// the object gone, rather than a NotFound (the namespace finalizer's
// delete made a client's PATCH fail so) or a Conflict for a write that
// happened (and a retry that would patch the other writer's object).
func TestPipelineFinalizedUpdateRace(t *testing.T) {
	tests := []struct {
		name    string
		between func(m *memStore, updated engine.Object)
		gone    bool
	}{
		{"deleted by another", func(m *memStore, updated engine.Object) { delete(m.objects, updated.Key) }, true},
		{"changed by another", func(m *memStore, updated engine.Object) {
			updated.Body = []byte(strings.Replace(string(updated.Body), `"metadata":{`, `"metadata":{"finalizers":["x/z"],`, 1))
			if _, err := m.put(updated); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, nil)
			ctx := context.Background()
			if _, err := p.service.Patch(ctx, p.target, "g", MergePatch, []byte(`{"metadata":{"finalizers":["x/y"]}}`), WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if res, err := p.service.Delete(ctx, p.target, "g", DeleteOptions{}); err != nil || !res.Pending {
				t.Fatalf("delete: %v pending %v", err, res.Pending)
			}
			s := New(&writeBetween{memStore: p.store, between: tt.between})
			s.Now = p.service.Now
			res, err := s.Patch(ctx, p.target, "g", MergePatch, []byte(`{"metadata":{"finalizers":null}}`), WriteOptions{})
			if err != nil {
				t.Fatalf("patch: %v", err)
			}
			if answer := gjson.ParseBytes(res.Object); answer.Get("metadata.name").String() != "g" || answer.Get("metadata.finalizers").Exists() {
				t.Errorf("answer = %s; want g as the patch wrote it, without finalizers", res.Object)
			}
			if stored := p.stored("g"); stored.Exists() == tt.gone {
				t.Errorf("stored after the race: %s; want gone %v", stored.Raw, tt.gone)
			}
		})
	}
}

func (p *pipeline) stored(name string) gjson.Result {
	o, ok := p.store.objects[p.target.key(name)]
	if !ok {
		return gjson.Result{}
	}
	return gjson.ParseBytes(o.Body)
}

func (p *pipeline) rv(name string) string {
	return p.stored(name).Get("metadata.resourceVersion").String()
}

// want checks an error's code ("" for none).
func want(t *testing.T, err error, code engine.Code) {
	t.Helper()
	if engine.ErrorCode(err) != code {
		t.Fatalf("error %v (code %q), want code %q", err, engine.ErrorCode(err), code)
	}
}

func TestPipelineCreate(t *testing.T) {
	tests := []struct {
		name     string
		strategy Strategy
		body     string
		opts     WriteOptions
		code     engine.Code
		check    func(t *testing.T, p *pipeline, res Result)
	}{
		{name: "type meta against the URL", body: strings.Replace(gadget("n", ``, ``), `"Gadget"`, `"Other"`, 1), code: engine.CodeBadRequest},
		{name: "resourceVersion refused", body: gadget("n", ``, ``, `"resourceVersion":"3"`), code: engine.CodeBadRequest},
		{name: "metadata, defaults, status dropped", body: gadget("n", `"size":2`, `"phase":"Sneaky"`), check: func(t *testing.T, p *pipeline, res Result) {
			s := p.stored("n")
			if s.Get("metadata.uid").String() == "" || s.Get("metadata.generation").Int() != 1 ||
				s.Get("metadata.creationTimestamp").String() != "2026-11-25T12:00:00Z" || s.Get("metadata.namespace").String() != "ns" {
				t.Errorf("server metadata not filled: %s", s.Raw)
			}
			if s.Get("spec.color").String() != "red" || s.Get("status").Exists() {
				t.Errorf("want spec.color defaulted and status dropped: %s", s.Raw)
			}
			if gjson.GetBytes(res.Object, "metadata.resourceVersion").String() != p.rv("n") {
				t.Errorf("answer %s is not the stored object %s", res.Object, s.Raw)
			}
		}},
		{name: "prune warns", body: gadget("n", `"bogus":1`, ``), check: func(t *testing.T, p *pipeline, res Result) {
			if p.stored("n").Get("spec.bogus").Exists() || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "spec.bogus") {
				t.Errorf("unknown field kept or not warned: %s %q", p.stored("n").Raw, res.Warnings)
			}
		}},
		{name: "strict refuses unknown fields", body: gadget("n", `"bogus":1`, ``), opts: WriteOptions{FieldValidation: FieldValidationStrict}, code: engine.CodeBadRequest},
		{name: "metadata and schema problems in one 422", body: gadget("N_", `"size":0`, ``), code: engine.CodeInvalid, check: func(t *testing.T, p *pipeline, res Result) {}},
		{name: "strategy validation", strategy: testStrategy{causes: []engine.FieldError{{Type: engine.CauseInvalid, Path: "spec"}}}, body: gadget("n", ``, ``), code: engine.CodeInvalid},
		{name: "strategy warnings", strategy: testStrategy{}, body: gadget("n", ``, ``), check: func(t *testing.T, p *pipeline, res Result) {
			if len(res.Warnings) != 1 || res.Warnings[0] != "strategy looked" {
				t.Errorf("warnings %q", res.Warnings)
			}
		}},
		{name: "dry run stores nothing", body: gadget("n", ``, ``), opts: WriteOptions{DryRun: true}, check: func(t *testing.T, p *pipeline, res Result) {
			if p.store.writes != 0 || gjson.GetBytes(res.Object, "spec.color").String() != "red" {
				t.Errorf("dry run wrote %d times, answered %s", p.store.writes, res.Object)
			}
		}},
		{name: "name taken", body: gadget("g", ``, ``), code: engine.CodeAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, tt.strategy)
			res, err := p.service.Create(context.Background(), p.target, []byte(tt.body), tt.opts)
			want(t, err, tt.code)
			if err != nil && p.store.writes != 0 {
				t.Fatalf("a refused create wrote")
			}
			if tt.code == engine.CodeInvalid && tt.strategy == nil && len(err.(*engine.Error).Causes) != 2 {
				t.Fatalf("want the metadata and the schema cause together: %+v", err)
			}
			if tt.check != nil {
				tt.check(t, p, res)
			}
		})
	}
}

func TestPipelineUpdate(t *testing.T) {
	tests := []struct {
		name        string
		strategy    Strategy
		subresource string
		body        func(rv string) string
		code        engine.Code
		check       func(t *testing.T, p *pipeline, res Result)
	}{
		{name: "stale resourceVersion", body: func(string) string { return gadget("g", `"size":3`, ``, `"resourceVersion":"999"`) }, code: engine.CodeConflict},
		{name: "missing resourceVersion", body: func(string) string { return gadget("g", `"size":3`, ``) }, code: engine.CodeInvalid},
		{name: "unconditional when the strategy allows", strategy: testStrategy{unconditional: true},
			body: func(string) string { return gadget("g", `"size":3`, ``) }, check: func(t *testing.T, p *pipeline, res Result) {
				if p.stored("g").Get("spec.size").Int() != 3 {
					t.Errorf("not written: %s", p.stored("g").Raw)
				}
			}},
		{name: "name against the URL", body: func(rv string) string { return gadget("h", ``, ``, `"resourceVersion":"`+rv+`"`) }, code: engine.CodeBadRequest},
		{name: "uid precondition", body: func(rv string) string {
			return gadget("g", ``, ``, `"resourceVersion":"`+rv+`","uid":"00000000-0000-0000-0000-000000000000"`)
		}, code: engine.CodeConflict},
		{name: "spec change bumps generation, status kept", body: func(rv string) string {
			return gadget("g", `"size":5`, `"phase":"Changed"`, `"resourceVersion":"`+rv+`"`)
		}, check: func(t *testing.T, p *pipeline, res Result) {
			s := p.stored("g")
			if s.Get("metadata.generation").Int() != 2 || s.Get("status.phase").String() != "Ready" || s.Get("spec.size").Int() != 5 {
				t.Errorf("want generation 2, status kept, size 5: %s", s.Raw)
			}
		}},
		{name: "metadata change keeps generation", body: func(rv string) string {
			return gadget("g", `"size":1`, ``, `"resourceVersion":"`+rv+`","labels":{"a":"b"}`)
		}, check: func(t *testing.T, p *pipeline, res Result) {
			s := p.stored("g")
			if s.Get("metadata.generation").Int() != 1 || s.Get("metadata.labels.a").String() != "b" {
				t.Errorf("want generation 1 and the label: %s", s.Raw)
			}
		}},
		{name: "no change writes nothing", body: func(rv string) string {
			return gadget("g", `"size":1`, ``, `"resourceVersion":"`+rv+`"`)
		}, check: func(t *testing.T, p *pipeline, res Result) {
			if p.store.writes != 0 {
				t.Errorf("an update that changes nothing wrote")
			}
		}},
		{name: "status takes only status", subresource: "status", body: func(rv string) string {
			return gadget("g", `"size":9`, `"phase":"Done"`, `"resourceVersion":"`+rv+`","labels":{"a":"b"}`)
		}, check: func(t *testing.T, p *pipeline, res Result) {
			s := p.stored("g")
			if s.Get("status.phase").String() != "Done" || s.Get("spec.size").Int() != 1 || s.Get("metadata.labels").Exists() {
				t.Errorf("want only status written: %s", s.Raw)
			}
		}},
		{name: "status write is schema-checked", subresource: "status", body: func(rv string) string {
			return gadget("g", ``, `"phase":7`, `"resourceVersion":"`+rv+`"`)
		}, code: engine.CodeInvalid},
		{name: "subresource not served", subresource: "finalize", body: func(rv string) string { return gadget("g", ``, ``) }, code: engine.CodeNotFound},
		{name: "schema ratcheting lets an unchanged invalid field be", body: func(rv string) string {
			return gadget("g", `"size":1`, ``, `"resourceVersion":"`+rv+`","labels":{"x":"y"}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, tt.strategy)
			tg := p.target
			tg.Subresource = tt.subresource
			res, err := p.service.Update(context.Background(), tg, "g", []byte(tt.body(p.rv("g"))), WriteOptions{})
			want(t, err, tt.code)
			if err != nil && p.store.writes != 0 {
				t.Fatalf("a refused update wrote")
			}
			if tt.check != nil {
				tt.check(t, p, res)
			}
		})
	}
}

func TestPipelinePatch(t *testing.T) {
	tests := []struct {
		name, patchType, patch string
		subresource            string
		code                   engine.Code
		size                   int64
		phase                  string
	}{
		{"merge", MergePatch, `{"spec":{"size":4}}`, "", "", 4, "Ready"},
		{"json", JSONPatch, `[{"op":"replace","path":"/spec/size","value":6}]`, "", "", 6, "Ready"},
		{"status through the main resource is ignored", MergePatch, `{"status":{"phase":"X"}}`, "", "", 1, "Ready"},
		{"status subresource", MergePatch, `{"spec":{"size":8},"status":{"phase":"X"}}`, "status", "", 1, "X"},
		{"invalid result", MergePatch, `{"spec":{"size":0}}`, "", engine.CodeInvalid, 1, "Ready"},
		{"malformed", MergePatch, `{`, "", engine.CodeBadRequest, 1, "Ready"},
		{"strategic merge patch not for custom resources", StrategicMergePatch, `{}`, "", engine.CodeUnsupportedMediaType, 1, "Ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, nil)
			tg := p.target
			tg.Subresource = tt.subresource
			_, err := p.service.Patch(context.Background(), tg, "g", tt.patchType, []byte(tt.patch), WriteOptions{})
			want(t, err, tt.code)
			s := p.stored("g")
			if s.Get("spec.size").Int() != tt.size || s.Get("status.phase").String() != tt.phase {
				t.Fatalf("want size %d, phase %q: %s", tt.size, tt.phase, s.Raw)
			}
		})
	}
}

func TestPipelineDelete(t *testing.T) {
	forbidden := engine.Errorf(engine.CodeForbidden, "no")
	tests := []struct {
		name       string
		strategy   Strategy
		finalizers bool
		opts       DeleteOptions
		code       engine.Code
		gone       bool
		pending    bool
	}{
		{name: "removed", gone: true},
		{name: "finalizers keep it, marked", finalizers: true, pending: true},
		{name: "dry run", opts: DeleteOptions{DryRun: true}},
		{name: "uid precondition", opts: DeleteOptions{PreconditionUID: "x"}, code: engine.CodeConflict},
		{name: "resourceVersion precondition", opts: DeleteOptions{PreconditionResourceVersion: "999"}, code: engine.CodeConflict},
		{name: "strategy refuses", strategy: testStrategy{refuseDelete: forbidden}, code: engine.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, tt.strategy)
			if tt.finalizers {
				o := p.store.objects[p.target.key("g")]
				o.Body = []byte(strings.Replace(string(o.Body), `"metadata":{`, `"metadata":{"finalizers":["x/y"],`, 1))
				if _, err := p.store.put(o); err != nil { // as another process would write it
					t.Fatal(err)
				}
				p.store.writes = 0
			}
			res, err := p.service.Delete(context.Background(), p.target, "g", tt.opts)
			want(t, err, tt.code)
			s := p.stored("g")
			if !s.Exists() != tt.gone || res.Pending != tt.pending {
				t.Fatalf("gone %v pending %v, want %v %v", !s.Exists(), res.Pending, tt.gone, tt.pending)
			}
			if tt.pending && (!s.Get("metadata.deletionTimestamp").Exists() || s.Get("metadata.generation").Int() != 2) {
				t.Fatalf("want marked with generation 2: %s", s.Raw)
			}
			if err == nil && gjson.GetBytes(res.Object, "metadata.name").String() != "g" {
				t.Fatalf("answer is not the object: %s", res.Object)
			}
		})
	}
}

// TestPipelineFinalizedUpdate: an update that removes the last finalizer
// of a marked object removes it.
func TestPipelineFinalizedUpdate(t *testing.T) {
	p := newPipeline(t, nil)
	ctx := context.Background()
	if _, err := p.service.Patch(ctx, p.target, "g", MergePatch, []byte(`{"metadata":{"finalizers":["x/y"]}}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var removed []engine.ObjectKey
	p.service.OnRemove(func(k engine.ObjectKey) { removed = append(removed, k) })
	if res, err := p.service.Delete(ctx, p.target, "g", DeleteOptions{}); err != nil || !res.Pending {
		t.Fatalf("delete: %v pending %v", err, res.Pending)
	}
	if _, err := p.service.Patch(ctx, p.target, "g", MergePatch, []byte(`{"metadata":{"finalizers":null}}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p.stored("g").Exists() || len(removed) != 1 {
		t.Fatalf("want g removed and OnRemove called once: %s, %v", p.stored("g").Raw, removed)
	}
}
