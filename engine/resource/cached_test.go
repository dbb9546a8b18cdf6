package resource_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/encryption"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// countingStore counts the reads of objects a Service makes.
type countingStore struct {
	engine.Store
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key engine.ObjectKey) (engine.Object, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, key)
}

// pair is two processes serving one database, a and b, each with its own
// Service and cache, a's reads of objects counted.
type pair struct {
	a, b    *resource.Service
	aStore  *countingStore
	widgets resource.Target
}

func newPair(t *testing.T, opts postgres.Options) (*pair, servicetest.Kit) {
	t.Helper()
	kit := servicetest.OpenWithOptions(t, opts, "ns")
	peer := kit.Peer(t, opts)
	p := &pair{b: peer.Service, aStore: &countingStore{Store: kit.Store}, widgets: target(t, kit, "shop.example.com", "v1", "widgets")}
	p.a = resource.New(p.aStore)
	namespace.Register(p.a)
	namespace.Register(p.b)
	return p, kit
}

const widgetBody = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":1}}`

func merge(t *testing.T, s *resource.Service, tg resource.Target, patch string) []byte {
	t.Helper()
	res, err := s.Patch(context.Background(), tg, "w", resource.MergePatch, []byte(patch), resource.WriteOptions{})
	if err != nil {
		t.Fatalf("patch %s: %v", patch, err)
	}
	return res.Object
}

// TestWritesSkipTheRead: an update, a patch and a delete of an object
// this process wrote last read nothing from the database.
func TestWritesSkipTheRead(t *testing.T) {
	p, _ := newPair(t, postgres.Options{})
	ctx := context.Background()
	created, err := p.a.Create(ctx, p.widgets, []byte(widgetBody), resource.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	updated, err := p.a.Update(ctx, p.widgets, "w", setSize(created.Object, 2), resource.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patched := merge(t, p.a, p.widgets, `{"spec":{"size":3}}`)
	if _, err := p.a.Delete(ctx, p.widgets, "w", resource.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := p.aStore.gets.Load(); n != 0 {
		t.Errorf("an update, a patch and a delete read the database %d times, want none", n)
	}
	if gjson.GetBytes(updated.Object, "spec.size").Int() != 2 || gjson.GetBytes(patched, "spec.size").Int() != 3 {
		t.Errorf("updated %s, patched %s", updated.Object, patched)
	}
}

// TestCachedObjectChangedElsewhere: whatever the other process did to an
// object since this one cached it, each write of this one answers as it
// would had it read the database: never from a stale entry.
func TestCachedObjectChangedElsewhere(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// other is what b does after a created w (created: a's answer);
		// it returns b's last answer.
		other func(t *testing.T, p *pair, created []byte) []byte
		// write is a's write; code its error's, check looks at its answer.
		write func(p *pair, created, latest []byte) ([]byte, error)
		code  engine.Code
		msg   string // the error's message holds it, with LATEST and CREATED replaced by those resourceVersions
		check func(t *testing.T, p *pair, created, latest, out []byte)
	}{{
		name: "put with the other's resourceVersion", other: labelled,
		write: func(p *pair, _, latest []byte) ([]byte, error) {
			return update(p, setSize(latest, 7), resource.WriteOptions{})
		},
		check: func(t *testing.T, p *pair, _, _, out []byte) { wantSize(t, out, 7) },
	}, {
		name: "put with the cached resourceVersion", other: labelled,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return update(p, setSize(created, 7), resource.WriteOptions{})
		},
		code: engine.CodeConflict, msg: `Operation cannot be fulfilled on widgets.shop.example.com "w": the object has been modified; please apply your changes to the latest version and try again`,
	}, {
		name: "unchanged put with the cached resourceVersion", other: labelled,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return update(p, created, resource.WriteOptions{})
		},
		code: engine.CodeConflict, msg: "the object has been modified",
	}, {
		name: "dry-run put with the cached resourceVersion", other: labelled,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return update(p, setSize(created, 7), resource.WriteOptions{DryRun: true})
		},
		code: engine.CodeConflict, msg: "the object has been modified",
	}, {
		name: "merge patch applies to the latest", other: labelled,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			return patch(p, resource.MergePatch, `{"spec":{"size":7}}`)
		},
		check: func(t *testing.T, _ *pair, _, _, out []byte) { wantSize(t, out, 7); wantLabel(t, out, "b") },
	}, {
		name: "json patch applies to the latest", other: labelled,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			return patch(p, resource.JSONPatch, `[{"op":"test","path":"/metadata/labels/by","value":"b"},{"op":"replace","path":"/spec/size","value":7}]`)
		},
		check: func(t *testing.T, _ *pair, _, _, out []byte) { wantSize(t, out, 7); wantLabel(t, out, "b") },
	}, {
		name: "patch with the cached resourceVersion", other: labelled,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return patch(p, resource.MergePatch, `{"metadata":{"resourceVersion":"`+rv(created)+`"},"spec":{"size":7}}`)
		},
		code: engine.CodeConflict, msg: "the object has been modified",
	}, {
		name: "apply applies to the latest", other: labelled,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			res, err := p.a.Patch(context.Background(), p.widgets, "w", resource.ApplyPatch,
				[]byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":7}}`),
				resource.WriteOptions{FieldManager: "a", Force: true})
			return res.Object, err
		},
		check: func(t *testing.T, _ *pair, _, _, out []byte) { wantSize(t, out, 7); wantLabel(t, out, "b") },
	}, {
		name: "delete deletes the latest and returns it", other: labelled,
		write: func(p *pair, _, _ []byte) ([]byte, error) { return remove(p, resource.DeleteOptions{}) },
		check: func(t *testing.T, p *pair, _, _, out []byte) { wantLabel(t, out, "b"); wantGone(t, p) },
	}, {
		name: "delete with the cached resourceVersion as precondition", other: labelled,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return remove(p, resource.DeleteOptions{PreconditionResourceVersion: rv(created)})
		},
		code: engine.CodeConflict, msg: "Precondition failed: ResourceVersion in precondition: CREATED, ResourceVersion in object meta: LATEST",
	}, {
		name: "delete with the latest resourceVersion as precondition", other: labelled,
		write: func(p *pair, _, latest []byte) ([]byte, error) {
			return remove(p, resource.DeleteOptions{PreconditionResourceVersion: rv(latest)})
		},
		check: func(t *testing.T, p *pair, _, _, _ []byte) { wantGone(t, p) },
	}, {
		name: "re-created: delete with the old uid as precondition", other: recreated,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return remove(p, resource.DeleteOptions{PreconditionUID: uid(created)})
		},
		code: engine.CodeConflict, msg: "Precondition failed: UID in precondition: CREATED_UID, UID in object meta: LATEST_UID",
	}, {
		name: "re-created: delete with the new uid as precondition", other: recreated,
		write: func(p *pair, _, latest []byte) ([]byte, error) {
			return remove(p, resource.DeleteOptions{PreconditionUID: uid(latest)})
		},
		check: func(t *testing.T, p *pair, _, latest, out []byte) {
			if uid(out) != uid(latest) {
				t.Errorf("deleted uid %s, want the new object's %s", uid(out), uid(latest))
			}
			wantGone(t, p)
		},
	}, {
		name: "re-created: put with the old resourceVersion", other: recreated,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return update(p, setSize(created, 7), resource.WriteOptions{})
		},
		code: engine.CodeConflict, msg: "the object has been modified",
	}, {
		name: "re-created: patch applies to the new object", other: recreated,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			return patch(p, resource.MergePatch, `{"spec":{"size":7}}`)
		},
		check: func(t *testing.T, _ *pair, _, latest, out []byte) {
			if uid(out) != uid(latest) {
				t.Errorf("patched uid %s, want the new object's %s", uid(out), uid(latest))
			}
		},
	}, {
		name: "deleted: put", other: deleted,
		write: func(p *pair, created, _ []byte) ([]byte, error) {
			return update(p, setSize(created, 7), resource.WriteOptions{})
		},
		code: engine.CodeNotFound,
	}, {
		name: "deleted: patch", other: deleted,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			return patch(p, resource.MergePatch, `{"spec":{"size":7}}`)
		},
		code: engine.CodeNotFound,
	}, {
		name: "deleted: delete", other: deleted,
		write: func(p *pair, _, _ []byte) ([]byte, error) { return remove(p, resource.DeleteOptions{}) },
		code:  engine.CodeNotFound,
	}, {
		name: "deleted: apply creates", other: deleted,
		write: func(p *pair, _, _ []byte) ([]byte, error) {
			res, err := p.a.Patch(context.Background(), p.widgets, "w", resource.ApplyPatch,
				[]byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":7}}`),
				resource.WriteOptions{FieldManager: "a"})
			if err == nil && !res.Created {
				return nil, engine.Errorf(engine.CodeInternal, "apply did not create: %s", res.Object)
			}
			return res.Object, err
		},
		check: func(t *testing.T, _ *pair, created, _, out []byte) {
			if uid(out) == uid(created) {
				t.Errorf("apply answered the deleted object's uid")
			}
		},
	}, {
		name: "finalizer added: delete keeps it, marked", other: finalized,
		write: func(p *pair, _, _ []byte) ([]byte, error) { return remove(p, resource.DeleteOptions{}) },
		check: func(t *testing.T, p *pair, _, _, out []byte) {
			now, err := p.b.Get(context.Background(), p.widgets, "w")
			if err != nil {
				t.Fatalf("the finalizer did not keep it: %v", err)
			}
			if !gjson.GetBytes(now, "metadata.deletionTimestamp").Exists() || !gjson.GetBytes(out, "metadata.deletionTimestamp").Exists() {
				t.Errorf("not marked for deletion: stored %s, answered %s", now, out)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newPair(t, postgres.Options{})
			created, err := p.a.Create(ctx, p.widgets, []byte(widgetBody), resource.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			latest := tt.other(t, p, created.Object)
			out, err := tt.write(p, created.Object, latest)
			if engine.ErrorCode(err) != tt.code && !(err == nil && tt.code == "") {
				t.Fatalf("err = %v (%s), want %s; answer %s", err, engine.ErrorCode(err), tt.code, out)
			}
			if tt.msg != "" {
				msg := strings.NewReplacer("CREATED_UID", uid(created.Object), "LATEST_UID", uid(latest),
					"CREATED", rv(created.Object), "LATEST", rv(latest)).Replace(tt.msg)
				if !strings.Contains(err.Error(), msg) {
					t.Fatalf("err = %q, want it to say %q", err, msg)
				}
			}
			if tt.check != nil {
				tt.check(t, p, created.Object, latest, out)
			}
		})
	}
}

// labelled: b labels w.
func labelled(t *testing.T, p *pair, _ []byte) []byte {
	return merge(t, p.b, p.widgets, `{"metadata":{"labels":{"by":"b"}}}`)
}

// recreated: b deletes w and creates another of the same name.
func recreated(t *testing.T, p *pair, created []byte) []byte {
	deleted(t, p, created)
	res, err := p.b.Create(context.Background(), p.widgets, []byte(widgetBody), resource.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Object
}

// deleted: b deletes w.
func deleted(t *testing.T, p *pair, _ []byte) []byte {
	if _, err := p.b.Delete(context.Background(), p.widgets, "w", resource.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return nil
}

// finalized: b gives w a finalizer.
func finalized(t *testing.T, p *pair, _ []byte) []byte {
	return merge(t, p.b, p.widgets, `{"metadata":{"finalizers":["example.com/keep"]}}`)
}

func update(p *pair, body []byte, opts resource.WriteOptions) ([]byte, error) {
	res, err := p.a.Update(context.Background(), p.widgets, "w", body, opts)
	return res.Object, err
}

func patch(p *pair, patchType, body string) ([]byte, error) {
	res, err := p.a.Patch(context.Background(), p.widgets, "w", patchType, []byte(body), resource.WriteOptions{})
	return res.Object, err
}

func remove(p *pair, opts resource.DeleteOptions) ([]byte, error) {
	res, err := p.a.Delete(context.Background(), p.widgets, "w", opts)
	return res.Object, err
}

// setSize sets spec.size of obj, which has one.
func setSize(obj []byte, size int) []byte {
	out, _ := sjson.SetBytes(obj, "spec.size", size)
	return out
}

func rv(obj []byte) string  { return gjson.GetBytes(obj, "metadata.resourceVersion").Str }
func uid(obj []byte) string { return gjson.GetBytes(obj, "metadata.uid").Str }

func wantSize(t *testing.T, out []byte, size int64) {
	t.Helper()
	if got := gjson.GetBytes(out, "spec.size").Int(); got != size {
		t.Errorf("spec.size = %d, want %d: %s", got, size, out)
	}
}

func wantLabel(t *testing.T, out []byte, by string) {
	t.Helper()
	if got := gjson.GetBytes(out, "metadata.labels.by").Str; got != by {
		t.Errorf("label by = %q, want %q (the other process's write lost): %s", got, by, out)
	}
}

func wantGone(t *testing.T, p *pair) {
	t.Helper()
	if _, err := p.b.Get(context.Background(), p.widgets, "w"); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Errorf("after the delete, get = %v, want NotFound", err)
	}
}

// TestCachedNamespaceTerminating: the other process started deleting a
// namespace this one cached; this one's delete answers the namespace as
// the other marked it (its deletionTimestamp, not a second one), its
// stale update is a Conflict, and nothing is created in it.
func TestCachedNamespaceTerminating(t *testing.T) {
	ctx := context.Background()
	p, kit := newPair(t, postgres.Options{})
	p.a.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) } // tells a's marks from b's
	namespaces := target(t, kit, "", "v1", "namespaces")
	namespaces.Namespace = ""
	created, err := p.a.Create(ctx, namespaces, []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"going"}}`), resource.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	marked, err := p.b.Delete(ctx, namespaces, "going", resource.DeleteOptions{})
	if err != nil || !marked.Pending {
		t.Fatalf("b's delete: pending %v, %v", marked.Pending, err)
	}
	again, err := p.a.Delete(ctx, namespaces, "going", resource.DeleteOptions{})
	if err != nil || !again.Pending {
		t.Fatalf("a's delete: pending %v, %v", again.Pending, err)
	}
	if got, want := gjson.GetBytes(again.Object, "metadata.deletionTimestamp").Str, gjson.GetBytes(marked.Object, "metadata.deletionTimestamp").Str; got != want {
		t.Errorf("a's delete answered deletionTimestamp %q, want b's %q", got, want)
	}
	labelled, err := sjson.SetBytes(created.Object, "metadata.labels.by", "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.a.Update(ctx, namespaces, "going", labelled, resource.WriteOptions{}); engine.ErrorCode(err) != engine.CodeConflict {
		t.Errorf("a's update with the resourceVersion it created: %v, want Conflict", err)
	}
	widgets := p.widgets
	widgets.Namespace = "going"
	_, err = p.a.Create(ctx, widgets, []byte(strings.Replace(widgetBody, `"namespace":"ns"`, `"namespace":"going"`, 1)), resource.WriteOptions{})
	if engine.ErrorCode(err) != engine.CodeForbidden {
		t.Errorf("create in the terminating namespace: %v, want Forbidden", err)
	}
}

// TestCachedEncryptedObjects: an update that starts from the cache
// (which holds objects as read, decrypted) stores the object encrypted,
// as one that read the database does, and the other process reads it.
func TestCachedEncryptedObjects(t *testing.T) {
	ctx := context.Background()
	config, err := encryption.Parse([]byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [configmaps]
  providers:
  - aescbc:
      keys:
      - name: key1
        secret: c2VjcmV0IGlzIHNlY3VyZSwgb3IgaXMgaXQ/IDMyYnk=
`))
	if err != nil {
		t.Fatal(err)
	}
	encrypted := postgres.Options{Encryption: func(gr engine.GroupResource) postgres.Transformer {
		if tr := config.For(gr); tr != nil {
			return tr
		}
		return nil
	}}
	p, kit := newPair(t, encrypted)
	plain := kit.Peer(t, postgres.Options{}) // sees rows as stored
	configmaps := target(t, kit, "", "v1", "configmaps")
	created, err := p.a.Create(ctx, configmaps, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"k":"first"}}`), resource.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := sjson.SetBytes(created.Object, "data.k", "second-plaintext")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.a.Update(ctx, configmaps, "c", body, resource.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := p.aStore.gets.Load(); n != 0 {
		t.Errorf("the update read the database %d times: it did not start from the cache", n)
	}
	row, err := plain.Store.Get(ctx, engine.ObjectKey{Resource: configmaps.GroupResource(), Namespace: "ns", Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(row.Body), "second-plaintext") || !gjson.GetBytes(row.Body, gjson.Escape("k8s:enc")).Exists() {
		t.Errorf("stored in plaintext: %s", row.Body)
	}
	read, err := p.b.Get(ctx, configmaps, "c")
	if err != nil || gjson.GetBytes(read, "data.k").Str != "second-plaintext" {
		t.Errorf("the other process reads %s, %v", read, err)
	}
}
