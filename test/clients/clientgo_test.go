package clients

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

var (
	widgets    = schema.GroupVersionResource{Group: "labs.example.com", Version: "v1alpha1", Resource: "widgets"}
	namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if _, err := dyn.Resource(namespaces).Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

func newWidget(ns, name string, replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "labs.example.com/v1alpha1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"port": int64(80), "replicas": replicas},
	}}
}

// Aggregated discovery: client-go learns every group version in one
// request and finds the Widget with its scale subresource.
func TestDiscovery(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(config())
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	found := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			found[l.GroupVersion+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"labs.example.com/v1alpha1/widgets", "labs.example.com/v1alpha1/widgets/scale", "v1/namespaces", "coordination.k8s.io/v1/leases"} {
		if !found[want] {
			t.Errorf("discovery lacks %s", want)
		}
	}
}

// The dynamic client writes and reads; a dynamic shared informer and a
// metadata informer converge on what was written.
func TestInformers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := dynamic.NewForConfigOrDie(config())
	newNamespace(t, dyn, "informers")
	client := dyn.Resource(widgets).Namespace("informers")

	full := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, time.Minute, "informers", nil)
	fullInformer := full.ForResource(widgets).Informer()
	meta := metadatainformer.NewFilteredSharedInformerFactory(metadata.NewForConfigOrDie(config()), time.Minute, "informers", nil)
	metaInformer := meta.ForResource(widgets).Informer()
	full.Start(ctx.Done())
	meta.Start(ctx.Done())
	for _, inf := range []cache.SharedIndexInformer{fullInformer, metaInformer} {
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatal("informer did not sync")
		}
	}

	for i := range 20 {
		if _, err := client.Create(ctx, newWidget("informers", fmt.Sprintf("w%d", i), 1), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	for i := range 5 {
		w, err := client.Get(ctx, fmt.Sprintf("w%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(w.Object, int64(3), "spec", "replicas")
		if _, err := client.Update(ctx, w, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	for i := 15; i < 20; i++ {
		if err := client.Delete(ctx, fmt.Sprintf("w%d", i), metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	eventually(t, "dynamic informer converges", func() bool {
		if len(fullInformer.GetStore().List()) != 15 {
			return false
		}
		obj, ok, _ := fullInformer.GetStore().GetByKey("informers/w0")
		if !ok {
			return false
		}
		n, _, _ := unstructured.NestedInt64(obj.(*unstructured.Unstructured).Object, "spec", "replicas")
		return n == 3
	})
	eventually(t, "metadata informer converges", func() bool { return len(metaInformer.GetStore().List()) == 15 })
	obj, ok, _ := metaInformer.GetStore().GetByKey("informers/w1")
	if !ok {
		t.Fatal("metadata informer lacks w1")
	}
	pom, isMeta := obj.(*metav1.PartialObjectMetadata)
	if !isMeta || pom.Name != "w1" || pom.UID == "" || pom.ResourceVersion == "" {
		t.Fatalf("metadata informer holds %T %+v", obj, obj)
	}

	// A metadata-only list pages with remainingItemCount.
	mc := metadata.NewForConfigOrDie(config()).Resource(widgets).Namespace("informers")
	page, err := mc.List(ctx, metav1.ListOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 4 || page.Continue == "" || page.RemainingItemCount == nil || *page.RemainingItemCount != 11 {
		t.Fatalf("metadata page: %d items, continue %q, remaining %v", len(page.Items), page.Continue, page.RemainingItemCount)
	}
}

// The scale subresource through client-go's dynamic client.
func TestScale(t *testing.T) {
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(config())
	newNamespace(t, dyn, "scaling")
	client := dyn.Resource(widgets).Namespace("scaling")
	if _, err := client.Create(ctx, newWidget("scaling", "s", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := client.Get(ctx, "s", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(scale.Object, int64(4), "spec", "replicas")
	if _, err := client.Update(ctx, scale, metav1.UpdateOptions{}, "scale"); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	w, err := client.Get(ctx, "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas"); n != 4 {
		t.Fatalf("replicas = %d after scale", n)
	}
}
