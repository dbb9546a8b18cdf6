package httpapi_test

import (
	"testing"

	"github.com/tidwall/gjson"
)

// A streaming list (client-go's WatchList) in each representation a
// client may ask for, from Kubernetes' e2e spec
// test/e2e/apimachinery/watchlist.go: every object carries its kind and
// apiVersion, and the stream ends with the bookmark annotated
// k8s.io/initial-events-end, in the same representation (kube-apiserver
// turns a Table watch's bookmark into a Table too, its one row holding
// the bookmark's metadata).
func TestWatchListRepresentations(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("a", `{"size":1}`))
	s.create(widgets, widget("b", `{"size":2}`))
	const end = `k8s\.io/initial-events-end`
	tests := []struct {
		name, accept     string
		kind, apiVersion string // of each event's object
		annotation       string // the path of the end annotation in the bookmark's object
	}{
		{"json", "application/json", "Widget", "shop.example.com/v1", "metadata.annotations." + end},
		{"metadata", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", "PartialObjectMetadata", "meta.k8s.io/v1", "metadata.annotations." + end},
		{"table", "application/json;as=Table;g=meta.k8s.io;v=v1", "Table", "meta.k8s.io/v1", "rows.0.object.metadata.annotations." + end},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := s.watch(widgets+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "Accept", tt.accept)
			events := w.until("BOOKMARK", "")
			if len(events) != 3 {
				t.Fatalf("events = %v, want two ADDED and the bookmark", events)
			}
			for _, ev := range events {
				if ev.Get("object.kind").String() != tt.kind || ev.Get("object.apiVersion").String() != tt.apiVersion {
					t.Errorf("%s event's object is %s %s, want %s %s", ev.Get("type"), ev.Get("object.apiVersion"), ev.Get("object.kind"), tt.apiVersion, tt.kind)
				}
			}
			if got := events[2].Get("object." + tt.annotation).String(); got != "true" {
				t.Errorf("bookmark %s lacks %s", events[2].Raw, tt.annotation)
			}
		})
	}
}

// until returns the events up to and with the first of type typ for the
// object name.
func (w *watchStream) until(typ, name string) []gjson.Result {
	w.t.Helper()
	var events []gjson.Result
	for {
		ev := w.next()
		events = append(events, ev)
		if ev.Get("type").String() == typ && ev.Get("object.metadata.name").String() == name {
			return events
		}
	}
}
