package clients

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// A dynapi that keeps one second of history and sends bookmarks every
// 200 ms: a client's watch from a resourceVersion a few seconds old gets
// 410 Gone, as from a kube-apiserver whose watch cache moved on.
func TestShortHistory(t *testing.T) {
	url, stop, err := startDynapi("--event-retention=1s", "--watch-bookmark-interval=200ms")
	if err != nil {
		t.Fatalf("start dynapi: %v", err)
	}
	t.Cleanup(stop)
	plain := dynamic.NewForConfigOrDie(&rest.Config{Host: url, QPS: 200, Burst: 400})
	newNamespace(t, plain, "history")
	t.Run("informer relists after 410", func(t *testing.T) { testRelistAfterGone(t, url, plain) })
	t.Run("bookmarks", func(t *testing.T) { testBookmarks(t, plain) })
}

// informerTraffic sits under an informer's client: it counts the requests
// for the widgets' initial state (a LIST, or a watch-list watch with
// sendInitialEvents), holds the informer's next watch on demand, and
// keeps what the held watch was answered.
type informerTraffic struct {
	next http.RoundTripper
	held chan string // the resourceVersion each held watch asked for

	mu      sync.Mutex
	initial int
	hold    chan struct{} // while set, a watch resuming from a resourceVersion waits for it to close
	answer  []byte        // the status and body of the held watch, as read
}

func (x *informerTraffic) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/widgets") {
		return x.next.RoundTrip(req)
	}
	q := req.URL.Query()
	watching := q.Get("watch") == "true" || q.Get("watch") == "1"
	x.mu.Lock()
	hold := x.hold
	if !watching || q.Get("sendInitialEvents") == "true" {
		x.initial++
		hold = nil
	}
	x.mu.Unlock()
	if hold != nil {
		x.held <- q.Get("resourceVersion")
		select {
		case <-hold:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	resp, err := x.next.RoundTrip(req)
	if err == nil && hold != nil {
		x.record([]byte(resp.Status + "\n"))
		resp.Body = recordedBody{resp.Body, x}
	}
	return resp, err
}

func (x *informerTraffic) record(b []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.answer = append(x.answer, b...)
}

// recordedBody is a held watch's body, recorded as the informer reads it.
type recordedBody struct {
	io.ReadCloser
	x *informerTraffic
}

func (b recordedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.x.record(p[:n])
	return n, err
}

// counts are the requests for the initial state, and the held watch's answer.
func (x *informerTraffic) counts() (initial int, answer string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.initial, string(x.answer)
}

// holdWatches holds the informer's next watch; the returned func lets it go.
func (x *informerTraffic) holdWatches() (release func()) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.hold = make(chan struct{})
	return func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		close(x.hold)
		x.hold = nil
	}
}

// A dynamic shared informer converges after writes; its watch, held back
// until the history after its resourceVersion is compacted, is answered
// 410; it relists and converges again, writes made meanwhile included.
func testRelistAfterGone(t *testing.T, url string, plain dynamic.Interface) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	traffic := &informerTraffic{held: make(chan string, 4)}
	informed := dynamic.NewForConfigOrDie(&rest.Config{Host: url, QPS: 200, Burst: 400,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper { traffic.next = rt; return traffic }})
	client := plain.Resource(widgets).Namespace("history")
	create := func(name string, replicas int64) {
		t.Helper()
		if _, err := client.Create(ctx, newWidget("history", name, replicas), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	for i := range 3 {
		create(fmt.Sprintf("w%d", i), 1)
	}
	// Watches end every 2 s (the reflector asks for 5 to 10 minutes), so
	// that the informer soon resumes one from its resourceVersion.
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(informed, 0, "history",
		func(o *metav1.ListOptions) { o.TimeoutSeconds = new(int64(2)) })
	informer := factory.ForResource(widgets).Informer()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	converged := func() bool { return maps.Equal(replicasOf(informer.GetStore().List()), listReplicas(t, client)) }
	setReplicas(t, client, "w0", 3)
	create("w3", 1)
	eventually(t, "informer converges after writes", converged)
	if initial, _ := traffic.counts(); initial != 1 {
		t.Fatalf("%d requests for the initial state before any 410, want 1", initial)
	}

	release := traffic.holdWatches()
	var rv string
	select {
	case rv = <-traffic.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the informer did not resume its watch within 30s")
	}
	// Unseen by the informer: its watch is held.
	if err := client.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	setReplicas(t, client, "w2", 7)
	create("w4", 1)
	eventually(t, "the history after the held resourceVersion "+rv+" is compacted", func() bool { return expired(ctx, client, rv) })
	if _, stale, _ := informer.GetStore().GetByKey("history/w1"); !stale {
		t.Fatal("the informer saw the writes made while its watch was held")
	}
	release()

	eventually(t, "informer converges after relisting", converged)
	// dynapi answers as kube-apiserver does: 200 and an ERROR event.
	initial, answer := traffic.counts()
	if !strings.Contains(answer, `"code":410`) || !strings.Contains(answer, `"reason":"Expired"`) || initial < 2 {
		t.Fatalf("after the held watch (answered %q): %d requests for the initial state, want 2 at least", answer, initial)
	}
}

// expired reports whether a watch from rv is answered 410 Gone (Expired),
// as an error or as its first event; a watch that is not ends within a
// second.
func expired(ctx context.Context, client dynamic.ResourceInterface, rv string) bool {
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, TimeoutSeconds: new(int64(1))})
	if err != nil {
		return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
	}
	defer w.Stop()
	ev := <-w.ResultChan()
	if ev.Type != watch.Error {
		return false
	}
	err = apierrors.FromObject(ev.Object)
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// A watch that allows bookmarks gets BOOKMARK events, each with the
// resourceVersion the watch has reached.
func testBookmarks(t *testing.T, plain dynamic.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := plain.Resource(widgets).Namespace("history")
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	first := nextBookmark(t, w)
	if first < rvNumber(t, list.GetResourceVersion()) {
		t.Fatalf("bookmark at %d before the list's resourceVersion %s", first, list.GetResourceVersion())
	}
	created, err := client.Create(ctx, newWidget("history", "bookmarked", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if next := nextBookmark(t, w); next < rvNumber(t, created.GetResourceVersion()) {
		t.Fatalf("bookmark at %d after the create at %s", next, created.GetResourceVersion())
	}
}

// nextBookmark reads w up to its next BOOKMARK and returns its
// resourceVersion, after checking what the event holds.
func nextBookmark(t *testing.T, w watch.Interface) int64 {
	t.Helper()
	for ev := range w.ResultChan() {
		if ev.Type != watch.Bookmark {
			continue
		}
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok || u.GetKind() != "Widget" || u.GetAPIVersion() != "labs.example.com/v1alpha1" {
			t.Fatalf("bookmark object: %#v", ev.Object)
		}
		return rvNumber(t, u.GetResourceVersion())
	}
	t.Fatal("the watch ended without a bookmark")
	return 0
}

func rvNumber(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", rv, err)
	}
	return n
}

// replicasOf maps each widget held to its spec.replicas.
func replicasOf(objs []any) map[string]int64 {
	out := map[string]int64{}
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		out[u.GetName()], _, _ = unstructured.NestedInt64(u.Object, "spec", "replicas")
	}
	return out
}

// listReplicas is replicasOf what the server lists.
func listReplicas(t *testing.T, client dynamic.ResourceInterface) map[string]int64 {
	t.Helper()
	list, err := client.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	objs := make([]any, len(list.Items))
	for i := range list.Items {
		objs[i] = &list.Items[i]
	}
	return replicasOf(objs)
}

func setReplicas(t *testing.T, client dynamic.ResourceInterface, name string, n int64) {
	t.Helper()
	w, err := client.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(w.Object, n, "spec", "replicas")
	if _, err := client.Update(context.Background(), w, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
}
