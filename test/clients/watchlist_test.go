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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Streaming lists (WatchList), from Kubernetes' e2e spec
// test/e2e/apimachinery/watchlist.go: an informer whose ListFunc fails
// syncs from one watch with sendInitialEvents=true, holds what a plain
// list holds, and follows an update; for a built-in kind (typed client,
// JSON and protobuf), for a custom resource (dynamic client) and as
// metadata only. client-go's WatchListClient gate is on by default in
// v0.37 (KUBE_FEATURE_WatchListClient=true says so explicitly).
func TestWatchListInformers(t *testing.T) {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Fatal("client-go's WatchListClient gate is off: set KUBE_FEATURE_WatchListClient=true")
	}
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(config())
	newNamespace(t, dyn, "watchlist")
	cs := kubernetes.NewForConfigOrDie(config())
	for i := range 5 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("secret-%d", i), Labels: map[string]string{"watchlist": "true"}},
			StringData: map[string]string{"n": fmt.Sprint(i)}}
		if _, err := cs.CoreV1().Secrets("watchlist").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(widgets).Namespace("watchlist").Create(ctx, labelled(newWidget("watchlist", fmt.Sprintf("w%d", i), 1)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	secrets := corev1.SchemeGroupVersion.WithResource("secrets")
	tests := []struct {
		name     string
		watch    func(*rest.Config, metav1.ListOptions) (watch.Interface, error)
		list     func(*rest.Config) (runtime.Object, error) // the plain list the informer must agree with
		example  runtime.Object
		contents string
		update   func(*rest.Config) error
	}{
		{name: "typed secrets, json", contents: "application/json", example: &corev1.Secret{},
			watch: func(c *rest.Config, o metav1.ListOptions) (watch.Interface, error) {
				return kubernetes.NewForConfigOrDie(c).CoreV1().Secrets("watchlist").Watch(ctx, o)
			},
			list:   func(c *rest.Config) (runtime.Object, error) { return plainSecrets(ctx, c) },
			update: func(c *rest.Config) error { return touchSecret(ctx, c) }},
		{name: "typed secrets, protobuf", contents: protobuf, example: &corev1.Secret{},
			watch: func(c *rest.Config, o metav1.ListOptions) (watch.Interface, error) {
				return kubernetes.NewForConfigOrDie(c).CoreV1().Secrets("watchlist").Watch(ctx, o)
			},
			list:   func(c *rest.Config) (runtime.Object, error) { return plainSecrets(ctx, c) },
			update: func(c *rest.Config) error { return touchSecret(ctx, c) }},
		{name: "custom resources", example: &unstructured.Unstructured{},
			watch: func(c *rest.Config, o metav1.ListOptions) (watch.Interface, error) {
				return dynamic.NewForConfigOrDie(c).Resource(widgets).Namespace("watchlist").Watch(ctx, o)
			},
			list: func(c *rest.Config) (runtime.Object, error) {
				return dynamic.NewForConfigOrDie(c).Resource(widgets).Namespace("watchlist").List(ctx, metav1.ListOptions{LabelSelector: "watchlist=true"})
			},
			update: func(c *rest.Config) error { return touchWidget(ctx, c) }},
		{name: "secrets, metadata only", example: &metav1.PartialObjectMetadata{},
			watch: func(c *rest.Config, o metav1.ListOptions) (watch.Interface, error) {
				return metadata.NewForConfigOrDie(c).Resource(secrets).Namespace("watchlist").Watch(ctx, o)
			},
			list: func(c *rest.Config) (runtime.Object, error) {
				return metadata.NewForConfigOrDie(c).Resource(secrets).Namespace("watchlist").List(ctx, metav1.ListOptions{LabelSelector: "watchlist=true"})
			},
			update: func(c *rest.Config) error { return touchSecret(ctx, c) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec requests
			c := rec.config()
			c.ContentType = tt.contents
			informer := cache.NewSharedIndexInformer(&cache.ListWatch{
				ListFunc: func(metav1.ListOptions) (runtime.Object, error) { return nil, fmt.Errorf("unexpected list call") },
				WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
					o.LabelSelector = "watchlist=true"
					return tt.watch(c, o)
				},
			}, tt.example, 0, nil)
			stop := make(chan struct{})
			defer close(stop)
			go informer.Run(stop)
			agrees := func() bool {
				want, err := tt.list(config())
				return err == nil && slices.Equal(versions(t, want), storeVersions(informer.GetStore()))
			}
			eventually(t, "the informer holds what a list holds", func() bool { return informer.HasSynced() && agrees() })
			if !rec.streamed() {
				t.Fatalf("no streaming list among %v", rec.all())
			}
			if err := tt.update(config()); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the informer follows an update", agrees)
		})
	}
}

// labelled sets the label the watch-list tests select on.
func labelled(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.SetLabels(map[string]string{"watchlist": "true"})
	return u
}

// plainSecrets is a plain list of the labelled secrets.
func plainSecrets(ctx context.Context, c *rest.Config) (runtime.Object, error) {
	return kubernetes.NewForConfigOrDie(c).CoreV1().Secrets("watchlist").List(ctx, metav1.ListOptions{LabelSelector: "watchlist=true"})
}

// touchSecret changes secret-1.
func touchSecret(ctx context.Context, c *rest.Config) error {
	client := kubernetes.NewForConfigOrDie(c).CoreV1().Secrets("watchlist")
	s, err := client.Get(ctx, "secret-1", metav1.GetOptions{})
	if err != nil {
		return err
	}
	s.StringData = map[string]string{"foo": time.Now().String()}
	_, err = client.Update(ctx, s, metav1.UpdateOptions{})
	return err
}

// touchWidget changes w1.
func touchWidget(ctx context.Context, c *rest.Config) error {
	client := dynamic.NewForConfigOrDie(c).Resource(widgets).Namespace("watchlist")
	w, err := client.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		return err
	}
	n, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
	_ = unstructured.SetNestedField(w.Object, n+1, "spec", "replicas")
	_, err = client.Update(ctx, w, metav1.UpdateOptions{})
	return err
}

// versions are the "name@resourceVersion" of a list's items, sorted.
func versions(t *testing.T, list runtime.Object) []string {
	t.Helper()
	var out []string
	items, err := metaItems(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range items {
		out = append(out, o.GetName()+"@"+o.GetResourceVersion())
	}
	slices.Sort(out)
	return out
}

// metaItems are a list's items as metav1.Object.
func metaItems(list runtime.Object) ([]metav1.Object, error) {
	var out []metav1.Object
	switch l := list.(type) {
	case *corev1.SecretList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *unstructured.UnstructuredList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *metav1.PartialObjectMetadataList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	default:
		return nil, fmt.Errorf("unexpected list %T", list)
	}
	return out, nil
}

// storeVersions are the "name@resourceVersion" of an informer's objects, sorted.
func storeVersions(store cache.Store) []string {
	var out []string
	for _, o := range store.List() {
		m := o.(metav1.Object)
		out = append(out, m.GetName()+"@"+m.GetResourceVersion())
	}
	slices.Sort(out)
	return out
}

// requests records the query of every request a client's transport carries.
type requests struct {
	mu      sync.Mutex
	queries []string
}

// config is config() with the transport recording into r.
func (r *requests) config() *rest.Config {
	c := config()
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			r.mu.Lock()
			r.queries = append(r.queries, req.URL.RawQuery)
			r.mu.Unlock()
			return rt.RoundTrip(req)
		})
	}
	return c
}

// streamed says whether a streaming list was asked for, with the
// parameters client-go's reflector sends.
func (r *requests) streamed() bool {
	for _, q := range r.all() {
		if strings.Contains(q, "sendInitialEvents=true") && strings.Contains(q, "resourceVersionMatch=NotOlderThan") &&
			strings.Contains(q, "allowWatchBookmarks=true") && strings.Contains(q, "watch=true") {
			return true
		}
	}
	return false
}

// all returns the queries recorded.
func (r *requests) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries)
}
