package clients

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
)

const protobuf = "application/vnd.kubernetes.protobuf"

// mediaTypes records the Content-Type of every request body and every
// answer a client's transport carries, to prove what went on the wire.
type mediaTypes struct {
	mu   sync.Mutex
	sent []string // "METHOD path content-type" of requests with a body
	got  []string // "METHOD path content-type" of answers
}

// config is config() with the transport recording into m. The content
// type is client-go's default: nothing here sets it.
func (m *mediaTypes) config() *rest.Config {
	c := config()
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			m.mu.Lock()
			defer m.mu.Unlock()
			call := req.Method + " " + req.URL.Path + " "
			if req.Body != nil && req.ContentLength != 0 {
				m.sent = append(m.sent, call+req.Header.Get("Content-Type"))
			}
			if err == nil {
				m.got = append(m.got, call+resp.Header.Get("Content-Type"))
			}
			return resp, err
		})
	}
	return c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// check fails t unless every body but a patch's went as protobuf and
// every answer came as protobuf (a watch's as a protobuf stream).
func (m *mediaTypes) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sent) == 0 || len(m.got) == 0 {
		t.Fatalf("nothing recorded: sent %v, got %v", m.sent, m.got)
	}
	for _, s := range m.sent {
		if !strings.HasPrefix(s, "PATCH ") && !strings.HasSuffix(s, " "+protobuf) {
			t.Errorf("a request body went as %q, not protobuf", s)
		}
	}
	for _, g := range m.got {
		if !strings.HasSuffix(g, " "+protobuf) && !strings.HasSuffix(g, " "+protobuf+";stream=watch") {
			t.Errorf("an answer came as %q, not protobuf", g)
		}
	}
}

// object is what a typed client reads and writes.
type object interface {
	metav1.Object
	runtime.Object
}

// typedClient is the part of a generated typed client (ConfigMaps,
// Leases, ...) that crud drives.
type typedClient[T object, L runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	List(context.Context, metav1.ListOptions) (L, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// crud creates obj, gets it, lists it, updates it with change (on the
// latest version, as clients do: the server may write it too), and deletes
// it with DeleteOptions bodies: a stale resourceVersion precondition is a
// Conflict, then the uid precondition and a propagation policy delete it.
func crud[T object, L runtime.Object](t *testing.T, c typedClient[T, L], obj T, change func(T), check func(T) bool) {
	t.Helper()
	ctx := context.Background()
	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	name := created.GetName()
	got, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil || got.GetUID() != created.GetUID() {
		t.Fatalf("get: %v, uid %q want %q", err, got.GetUID(), created.GetUID())
	}
	list, err := c.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if items, err := meta.ExtractList(list); err != nil || !slices.ContainsFunc(items, func(o runtime.Object) bool {
		return o.(metav1.Object).GetName() == name
	}) {
		t.Fatalf("list: %v, %s not among %d items", err, name, len(items))
	}
	var updated T
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(latest)
		updated, err = c.Update(ctx, latest, metav1.UpdateOptions{})
		return err
	})
	if err != nil || !check(updated) || updated.GetResourceVersion() == created.GetResourceVersion() {
		t.Fatalf("update: %v, %+v", err, updated)
	}
	stale := created.GetResourceVersion()
	err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}})
	if !apierrors.IsConflict(err) {
		t.Fatalf("delete with a stale resourceVersion: %v, want a Conflict", err)
	}
	uid, background := created.GetUID(), metav1.DeletePropagationBackground
	err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	// Gone at once, or, as a CustomResourceDefinition behind its cleanup
	// finalizer, once its objects are deleted.
	eventually(t, "NotFound after delete", func() bool {
		_, err := c.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// client-go's typed clientset, at its default content type (protobuf),
// creates, gets, lists, updates and deletes the built-in kinds.
func TestTypedClients(t *testing.T) {
	var wire mediaTypes
	cs, err := kubernetes.NewForConfig(wire.config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "typed"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	named := metav1.ObjectMeta{Name: "demo", Namespace: ns, Labels: map[string]string{"app": "demo"}}
	t.Run("ConfigMap", func(t *testing.T) {
		crud(t, cs.CoreV1().ConfigMaps(ns), &corev1.ConfigMap{ObjectMeta: named, Data: map[string]string{"a": "1"}},
			func(cm *corev1.ConfigMap) { cm.Data["b"] = "2" },
			func(cm *corev1.ConfigMap) bool { return cm.Data["a"] == "1" && cm.Data["b"] == "2" })
	})
	t.Run("Secret", func(t *testing.T) {
		crud(t, cs.CoreV1().Secrets(ns), &corev1.Secret{ObjectMeta: named, StringData: map[string]string{"password": "s3cr3t"}},
			func(s *corev1.Secret) { s.Data["user"] = []byte("admin") },
			func(s *corev1.Secret) bool {
				return string(s.Data["password"]) == "s3cr3t" && string(s.Data["user"]) == "admin" && s.Type == corev1.SecretTypeOpaque
			})
	})
	t.Run("Lease", func(t *testing.T) {
		holder, other, secs := "host-1", "host-2", int32(15)
		crud(t, cs.CoordinationV1().Leases(ns),
			&coordinationv1.Lease{ObjectMeta: named, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs}},
			func(l *coordinationv1.Lease) { l.Spec.HolderIdentity = &other },
			func(l *coordinationv1.Lease) bool {
				return *l.Spec.HolderIdentity == other && *l.Spec.LeaseDurationSeconds == secs
			})
	})
	t.Run("Event", func(t *testing.T) {
		crud(t, cs.CoreV1().Events(ns), &corev1.Event{ObjectMeta: named, Reason: "Tested", Message: "first", Type: corev1.EventTypeNormal,
			InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "demo", APIVersion: "v1"}, Count: 1},
			func(e *corev1.Event) { e.Count, e.Message = 2, "second" },
			func(e *corev1.Event) bool { return e.Count == 2 && e.Message == "second" })
	})
	t.Run("Watch", func(t *testing.T) { watchConfigMaps(t, cs, ns) })
	wire.check(t)
	t.Run("EventRecorder", func(t *testing.T) { recordRepeatedEvent(t, kubernetes.NewForConfigOrDie(config()), ns) })
}

// A typed watch on ConfigMaps sees a ConfigMap created after it started.
func watchConfigMaps(t *testing.T, cs kubernetes.Interface, ns string) {
	// The watch ends at the deadline, should the event never come.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}, Data: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	for ev := range w.ResultChan() {
		if got, ok := ev.Object.(*corev1.ConfigMap); ev.Type == watch.Added && ok && got.Name == "watched" && got.Data["k"] == "v" {
			return
		}
		if ev.Type == watch.Error {
			t.Fatalf("watch error: %v", apierrors.FromObject(ev.Object))
		}
	}
	t.Fatal("the watch ended before the ConfigMap was seen")
}

// client-go's event recorder records the same event several times as one
// Event whose count rises: it creates the Event, then patches its count
// (strategic merge patch). Its sink writes through client-go's events
// expansion (CreateWithEventNamespace...), which does not ask for protobuf
// as the generated methods do, so it is not among the requests checked.
func recordRepeatedEvent(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "recorded"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	broadcaster := record.NewBroadcaster()
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "typed-test"})
	const times = 3
	var last *corev1.Event
	for i := 1; i <= times; i++ {
		recorder.Event(cm, corev1.EventTypeNormal, "Repeated", "the same thing happened")
		// One at a time: each must reach the server before the next is
		// recorded, or the recorder folds them into one write.
		eventually(t, fmt.Sprintf("the event recorded %d times", i), func() bool {
			last = repeatedEvent(t, cs, ns)
			return last != nil && last.Count == int32(i)
		})
	}
	if last.InvolvedObject.Name != "recorded" || last.Source.Component != "typed-test" {
		t.Errorf("event: %+v", last)
	}
}

// repeatedEvent is the only Event of reason Repeated in ns, or nil.
func repeatedEvent(t *testing.T, cs kubernetes.Interface, ns string) *corev1.Event {
	list, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=Repeated"})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	if len(list.Items) > 1 {
		t.Fatalf("%d Events, want one whose count rises", len(list.Items))
	}
	if len(list.Items) == 0 {
		return nil
	}
	return &list.Items[0]
}

// The typed apiextensions clientset, at its default content type
// (protobuf), creates a CustomResourceDefinition whose kind becomes served,
// then gets, lists, updates and deletes it.
func TestTypedCustomResourceDefinition(t *testing.T) {
	var wire mediaTypes
	cs, err := apiextensions.NewForConfig(wire.config())
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.typed.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "typed.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}}}}}}},
		},
	}
	served := func() bool { return servesResource("typed.example.com/v1", "gizmos") }
	crud(t, cs.ApiextensionsV1().CustomResourceDefinitions(), crd,
		func(c *apiextensionsv1.CustomResourceDefinition) {
			eventually(t, "gizmos served", served) // before the update: the created CRD's kind is served
			c.Spec.Names.ShortNames = []string{"gz"}
		},
		func(c *apiextensionsv1.CustomResourceDefinition) bool {
			return slices.Equal(c.Spec.Names.ShortNames, []string{"gz"})
		})
	eventually(t, "gizmos no longer served", func() bool { return !served() })
	wire.check(t)
}

// servesResource reports whether discovery lists resource in groupVersion.
func servesResource(groupVersion, resource string) bool {
	dc, err := discovery.NewDiscoveryClientForConfig(config())
	if err != nil {
		return false
	}
	list, err := dc.ServerResourcesForGroupVersion(groupVersion)
	return err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource })
}
