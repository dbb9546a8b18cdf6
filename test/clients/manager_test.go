package clients

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var widgetKind = schema.GroupVersionKind{Group: "labs.example.com", Version: "v1alpha1", Kind: "Widget"}

// reconciler makes status.readyReplicas follow spec.replicas through the
// status subresource and records an Event each time.
type reconciler struct {
	client   client.Client
	recorder events.EventRecorder
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetKind)
	if err := r.client.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	want, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
	if got, found, _ := unstructured.NestedInt64(w.Object, "status", "readyReplicas"); found && got == want {
		return reconcile.Result{}, nil
	}
	if err := unstructured.SetNestedField(w.Object, want, "status", "readyReplicas"); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.client.Status().Update(ctx, w); err != nil {
		return reconcile.Result{}, err
	}
	r.recorder.Eventf(w, nil, corev1.EventTypeNormal, "Reconciled", "Reconcile", "ready replicas set to %d", want)
	return reconcile.Result{}, nil
}

// A controller-runtime manager: leader election on a Lease, a reconciler
// of Widgets that writes status and records Events, a metadata-only watch
// of ConfigMaps, server-side apply; 50 objects reconciled.
func TestManager(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const ns = "manager"
	newNamespace(t, dynamic.NewForConfigOrDie(config()), ns)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(config(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "widgets-controller",
		LeaderElectionNamespace: ns,
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		t.Fatalf("manager: %v", err)
	}
	var configMapsSeen atomic.Int64
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetKind)
	cm := &metav1.PartialObjectMetadata{}
	cm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	err = ctrl.NewControllerManagedBy(mgr).Named("widgets").For(w).
		Watches(cm, handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
			configMapsSeen.Add(1)
			return nil
		}), builder.OnlyMetadata).
		Complete(&reconciler{client: mgr.GetClient(), recorder: mgr.GetEventRecorder("widgets-controller")})
	if err != nil {
		t.Fatalf("controller: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager stopped: %v", err)
		}
	}()

	c, err := client.New(config(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		obj := newWidget(ns, fmt.Sprintf("m%02d", i), int64(i%5))
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	// Server-side apply of one more, owned by this test's field manager.
	applied := newWidget(ns, "applied", 2)
	if err := c.Patch(ctx, applied, client.Apply, client.FieldOwner("clients-test"), client.ForceOwnership); err != nil { //nolint:staticcheck // the unstructured form of client.Apply
		t.Fatalf("apply: %v", err)
	}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seen", Namespace: ns}}); err != nil {
		t.Fatal(err)
	}

	eventually(t, "51 widgets reconciled", func() bool {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(widgetKind.GroupVersion().WithKind("WidgetList"))
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false
		}
		ready := 0
		for _, item := range list.Items {
			want, _, _ := unstructured.NestedInt64(item.Object, "spec", "replicas")
			if got, found, _ := unstructured.NestedInt64(item.Object, "status", "readyReplicas"); found && got == want {
				ready++
			}
		}
		return ready == 51
	})
	eventually(t, "the metadata-only watch sees the ConfigMap", func() bool { return configMapsSeen.Load() > 0 })
	eventually(t, "Events recorded", func() bool {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false
		}
		for _, e := range list.Items {
			if e.Reason == "Reconciled" && e.ReportingController == "widgets-controller" {
				return true
			}
		}
		return false
	})
	var lease coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "widgets-controller"}, &lease); err != nil || lease.Spec.HolderIdentity == nil {
		t.Fatalf("leader election lease: %v %+v", err, lease.Spec)
	}
}
