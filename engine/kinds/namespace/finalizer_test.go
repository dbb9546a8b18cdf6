package namespace_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// TestMain stops the throw-away PostgreSQL pgtest started once the tests end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// relics is a resource no definition serves: its kind was removed.
var relics = engine.GroupResource{Group: "old.example.com", Resource: "relics"}

// TestFinalizerWritesThroughThePipeline: the Finalizer's writes are a
// client's writes through the pipeline, as kube's namespace controller
// writes through the API: /finalize bumps the generation, /status records
// its field manager, the namespace's last delete is its strategy's; and
// an object of a resource no longer served still goes with its namespace.
// A client's delete of a namespace being deleted still leaves it to the
// Finalizer.
func TestFinalizerWritesThroughThePipeline(t *testing.T) {
	ctx := context.Background()
	kit := servicetest.Open(t)
	f := namespace.Register(kit.Service)
	f.SetPage(3) // the namespaces below hold more: emptied page by page
	namespaces := target(t, kit, "namespaces", "")

	for _, tc := range []struct {
		name, spec string
		// fill runs before the namespace is deleted.
		fill func(t *testing.T, ns string)
		// check looks at the namespace, created as created, after the
		// Finalizer's look: now is nil when it is gone.
		check func(t *testing.T, ns string, created, now []byte)
	}{{
		name: "finalize", spec: `{"finalizers":["example.com/keep"]}`,
		check: func(t *testing.T, _ string, created, now []byte) {
			if got := gjson.GetBytes(now, "spec.finalizers").Raw; got != `["example.com/keep"]` {
				t.Errorf("spec.finalizers = %s, want the kubernetes finalizer removed", got)
			}
			if was, got := gjson.GetBytes(created, "metadata.generation").Int(), gjson.GetBytes(now, "metadata.generation").Int(); got != was+1 {
				t.Errorf("generation = %d, want %d: /finalize changed spec", got, was+1)
			}
		},
	}, {
		name: "status", spec: `{}`,
		fill: func(t *testing.T, ns string) {
			_, err := kit.Service.Create(ctx, target(t, kit, "configmaps", ns),
				[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/x"]}}`), resource.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
		},
		check: func(t *testing.T, _ string, _, now []byte) {
			if !gjson.GetBytes(now, `status.conditions.#(type=="NamespaceFinalizersRemaining")`).Exists() {
				t.Errorf("no NamespaceFinalizersRemaining condition: %s", now)
			}
			if !gjson.GetBytes(now, `metadata.managedFields.#(manager=="namespace-controller")#|#(subresource=="status")`).Exists() {
				t.Errorf("the status write is not in managedFields: %s", gjson.GetBytes(now, "metadata.managedFields"))
			}
		},
	}, {
		name: "emptied-spec", spec: `{}`,
		fill: func(t *testing.T, ns string) {
			fin := namespaces
			fin.Subresource = "finalize"
			body := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"},"spec":{"finalizers":[]}}`
			if _, err := kit.Service.Update(ctx, fin, ns, []byte(body), resource.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		check: func(t *testing.T, _ string, _, now []byte) {
			if now != nil {
				t.Errorf("an emptied namespace with no finalizers is still there: %s", now)
			}
		},
	}, {
		name: "paged", spec: `{}`,
		fill: func(t *testing.T, ns string) {
			for i := range 10 {
				finalizers := ""
				if i == 7 {
					finalizers = `,"finalizers":["example.com/x"]`
				}
				_, err := kit.Service.Create(ctx, target(t, kit, "configmaps", ns),
					fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"%s}}`, i, finalizers), resource.WriteOptions{})
				if err != nil {
					t.Fatal(err)
				}
			}
		},
		check: func(t *testing.T, ns string, _, now []byte) {
			var left []string
			if _, err := kit.Service.ListStored(ctx, engine.ListOptions{Namespace: ns}, func(o engine.Object) error {
				left = append(left, o.Key.Name)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(left, []string{"c7"}) {
				t.Errorf("left in the namespace: %v, want c7 alone (it has a finalizer)", left)
			}
			if got := gjson.GetBytes(now, `status.conditions.#(type=="NamespaceContentRemaining").message`).String(); got != "Some resources are remaining: configmaps has 1 resource instances" {
				t.Errorf("NamespaceContentRemaining says %q", got)
			}
		},
	}, {
		name: "unserved", spec: `{}`,
		fill: func(t *testing.T, ns string) {
			_, err := kit.Store.Create(ctx, engine.Object{Key: engine.ObjectKey{Resource: relics, Namespace: ns, Name: "r"}, StoredVersion: "v1",
				Body: []byte(`{"apiVersion":"old.example.com/v1","kind":"Relic","metadata":{"name":"r","namespace":"` + ns + `"}}`)})
			if err != nil {
				t.Fatal(err)
			}
		},
		check: func(t *testing.T, ns string, _, now []byte) {
			if _, err := kit.Store.Get(ctx, engine.ObjectKey{Resource: relics, Namespace: ns, Name: "r"}); engine.ErrorCode(err) != engine.CodeNotFound {
				t.Errorf("the object of a resource no longer served is still there (%v)", err)
			}
			if now != nil {
				t.Errorf("the emptied namespace is still there: %s", now)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := "ns-" + tc.name
			created, err := kit.Service.Create(ctx, namespaces,
				[]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"},"spec":`+tc.spec+`}`), resource.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.fill != nil {
				tc.fill(t, ns)
			}
			for range 2 { // the second delete answers it as it is
				if res, err := kit.Service.Delete(ctx, namespaces, ns, resource.DeleteOptions{}); err != nil || !res.Pending {
					t.Fatalf("delete: pending %v, %v; want it marked", res.Pending, err)
				}
			}
			if err := f.Look(ctx, kit.Snapshot); err != nil {
				t.Fatal(err)
			}
			now, err := kit.Service.Get(ctx, namespaces, ns)
			if engine.ErrorCode(err) != engine.CodeNotFound && err != nil {
				t.Fatal(err)
			}
			tc.check(t, ns, created.Object, now)
		})
	}
}

// target addresses resource (core v1) in namespace ns.
func target(t *testing.T, kit servicetest.Kit, resourceName, ns string) resource.Target {
	t.Helper()
	res, ver, ok := kit.Snapshot.Lookup("", "v1", resourceName)
	if !ok {
		t.Fatalf("no core v1 %s", resourceName)
	}
	return resource.Target{Resource: res, Version: ver, Namespace: ns}
}
