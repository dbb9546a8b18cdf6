package resource

import (
	"context"
	"fmt"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// countingWebhook converts by rewriting apiVersion, and records the size
// of each call: a func-field fake of the webhook, not of the store.
type countingWebhook struct{ calls []int }

func (c *countingWebhook) Convert(_ context.Context, r *registry.Resource, objs [][]byte, to string, _ bool) ([][]byte, error) {
	c.calls = append(c.calls, len(objs))
	out := make([][]byte, len(objs))
	for i, o := range objs {
		var err error
		if out[i], err = sjson.SetBytes(o, "apiVersion", r.Group+"/"+to); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestDrain: a watch takes what is already waiting with the event it
// received, up to maxWatchBatch, without waiting for more.
func TestDrain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		waiting int
		closed  bool
		want    int
	}{
		{0, false, 1},
		{3, false, 4},
		{3, true, 4},
		{maxWatchBatch + 5, false, maxWatchBatch},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.waiting, tt.closed), func(t *testing.T) {
			t.Parallel()
			events := make(chan engine.Event, tt.waiting)
			for range tt.waiting {
				events <- engine.Event{Type: engine.EventAdded}
			}
			if tt.closed {
				close(events)
			}
			if got := len(drain(events, []engine.Event{{Type: engine.EventAdded}})); got != tt.want {
				t.Errorf("drain = %d events; want %d", got, tt.want)
			}
		})
	}
}

// TestWatchBatchOneCall: the events of a batch, and the objects they
// replaced, go to a conversion webhook in one call, and come out in order.
func TestWatchBatchOneCall(t *testing.T) {
	t.Parallel()
	r := &registry.Resource{Group: "conv.example.com", Kind: "Thing", StorageVersion: "v1",
		Webhook:  &registry.ConversionWebhook{CRDName: "things.conv.example.com"},
		Versions: []*registry.Version{{Name: "v1", Served: true}, {Name: "v2", Served: true}}}
	hook := &countingWebhook{}
	target := Target{Resource: r, Version: r.Versions[1], Namespace: "ns"}
	f, err := newFilter(target, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan WatchEvent, 8)
	w := &watcher{service: &Service{ConversionWebhooks: hook}, target: target, filter: f, out: out}
	stored := func(name string) engine.Object {
		return engine.Object{StoredVersion: "v1", ResourceVersion: 1,
			Body: fmt.Appendf(nil, `{"apiVersion":"conv.example.com/v1","kind":"Thing","metadata":{"name":%q}}`, name)}
	}
	modified := engine.Event{Type: engine.EventModified, Object: stored("b"), Prev: stored("b").Body, PrevStoredVersion: "v1"}
	if !w.forwardAll(context.Background(), []engine.Event{{Type: engine.EventAdded, Object: stored("a")}, modified,
		{Type: engine.EventBookmark, Object: stored("")}, {Type: engine.EventDeleted, Object: stored("c")}}) {
		t.Fatal("the watch ended")
	}
	close(out)
	var got []string
	for ev := range out {
		got = append(got, fmt.Sprintf("%s %s", ev.Type, ev.Object))
	}
	want := []string{
		`ADDED {"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"a"}}`,
		`MODIFIED {"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"b"}}`,
		`DELETED {"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"c","resourceVersion":"1"}}`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(hook.calls) != "[4]" {
		t.Errorf("events %q, calls %v; want %q, [4]", got, hook.calls, want)
	}
}
