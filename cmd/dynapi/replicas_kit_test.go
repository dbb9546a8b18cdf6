package main

// The kit of the replica tests (replicas_test.go): clients that check
// every read against their own acknowledged writes, and a watch that
// records every event in order and resumes as a client would.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
	"github.com/tidwall/gjson"
)

// readFormat is one way of listing: Accept header, query, and how to read
// the names and the resourceVersion of a page (0 when it has none: CSV).
type readFormat struct {
	name   string
	accept string
	query  string
	page   func(body []byte) (names []string, rv int64, cont string, err error)
}

// jsonPage reads a list, metadata-only list or Table: the names at
// namesPath, the resourceVersion and continue token of its metadata.
func jsonPage(namesPath string) func([]byte) ([]string, int64, string, error) {
	return func(body []byte) ([]string, int64, string, error) {
		rv, err := parseRV(gjson.GetBytes(body, "metadata.resourceVersion"))
		var names []string
		for _, n := range gjson.GetBytes(body, namesPath).Array() {
			names = append(names, n.Str)
		}
		return names, rv, gjson.GetBytes(body, "metadata.continue").Str, err
	}
}

// csvPage reads a CSV list: the first column after the header.
func csvPage(body []byte) ([]string, int64, string, error) {
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 || rows[0][0] != "Name" {
		return nil, 0, "", fmt.Errorf("not a CSV list (%v): %.200s", err, body)
	}
	var names []string
	for _, row := range rows[1:] {
		names = append(names, row[0])
	}
	return names, 0, "", nil
}

// readFormats are the lists each client sends in turn.
var readFormats = []readFormat{
	{"full", "application/json", "", jsonPage("items.#.metadata.name")},
	{"metadata-only", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", "", jsonPage("items.#.metadata.name")},
	{"Table", "application/json;as=Table;v=v1;g=meta.k8s.io", "", jsonPage("rows.#.object.metadata.name")},
	{"CSV", "text/csv", "", csvPage},
	{"paged", "application/json", "&limit=3", jsonPage("items.#.metadata.name")},
}

// faults collects what the clients found wrong.
type faults struct {
	mu   sync.Mutex
	list []string
}

func (f *faults) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, fmt.Sprintf(format, args...))
}

// check fails the test with the faults found.
func (f *faults) check(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.list) > 0 {
		t.Errorf("%d faults: %s", len(f.list), firstTen(f.list))
	}
}

// readingClient writes ConfigMaps labelled with its name, alternating
// between processes, and after each write reads through the other one:
// a get of what it wrote and a list of all it wrote, which must hold
// every write it was acknowledged, at a resourceVersion never older than
// one it saw before.
type readingClient struct {
	name   string
	bases  []string
	http   *http.Client
	faults *faults

	mu     sync.Mutex
	acked  map[string]int64 // name → resourceVersion
	seenRV int64            // the newest resourceVersion it was shown
	reads  int
}

// run writes and reads until stop ends, with requests that ctx bounds:
// one in flight when stop ends is served to its end (a list cut off
// mid-stream is logged by the server as an error).
func (c *readingClient) run(ctx, stop context.Context) {
	for n := 0; stop.Err() == nil; n++ {
		name := fmt.Sprintf("%s-%d", c.name, n)
		rv, ok := c.create(ctx, c.bases[n%len(c.bases)], name)
		if !ok {
			continue
		}
		other := c.bases[(n+1)%len(c.bases)]
		c.get(ctx, other, name, rv)
		c.list(ctx, other, readFormats[n%len(readFormats)])
	}
}

// do sends a request and returns the answer; ok is false when ctx ended
// it (not a fault) or it failed (a fault, recorded).
func (c *readingClient) do(ctx context.Context, method, url, accept, body string) (int, []byte, bool) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		panic(err) // a URL built by the test
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.faults.add("%s %s: %v", method, url, err)
		}
		return 0, nil, false
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() == nil {
			c.faults.add("%s %s: read the answer: %v", method, url, err)
		}
		return 0, nil, false
	}
	return resp.StatusCode, out, true
}

func (c *readingClient) create(ctx context.Context, base, name string) (int64, bool) {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"client":%q}}}`, name, c.name)
	code, out, ok := c.do(ctx, http.MethodPost, base+configMaps, "application/json", body)
	if !ok {
		return 0, false
	}
	rv, err := rvOf(out)
	if code != http.StatusCreated || err != nil {
		c.faults.add("create %s = %d: %.300s", name, code, out)
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acked[name] = rv
	return rv, true
}

// get reads back the object just written.
func (c *readingClient) get(ctx context.Context, base, name string, want int64) {
	code, out, ok := c.do(ctx, http.MethodGet, base+configMaps+"/"+name, "application/json", "")
	if !ok {
		return
	}
	if rv, err := rvOf(out); code != http.StatusOK || err != nil || rv != want {
		c.faults.add("get %s after its create at %d = %d: %.300s", name, want, code, out)
	}
	c.saw(want)
}

// list lists the client's objects in format f, every page.
func (c *readingClient) list(ctx context.Context, base string, f readFormat) {
	c.mu.Lock()
	want, floor := len(c.acked), c.seenRV
	c.mu.Unlock()
	url := base + configMaps + "?labelSelector=client%3D" + c.name + f.query
	var names []string
	var rv int64
	for cont := ""; ; {
		code, out, ok := c.do(ctx, http.MethodGet, url+cont, f.accept, "")
		if !ok {
			return
		}
		pageNames, pageRV, next, err := f.page(out)
		if code != http.StatusOK || err != nil {
			c.faults.add("%s list = %d (%v): %.300s", f.name, code, err, out)
			return
		}
		names, rv = append(names, pageNames...), max(rv, pageRV)
		if next == "" {
			break
		}
		cont = "&continue=" + next
	}
	if f.name != "CSV" && rv < floor {
		c.faults.add("%s list at %d after the client saw %d: back in time", f.name, rv, floor)
	}
	c.checkNames(f.name, names, want)
	c.saw(rv)
}

// checkNames checks that names holds each of the client's first want
// acknowledged writes.
func (c *readingClient) checkNames(format string, names []string, want int) {
	got := map[string]bool{}
	for _, n := range names {
		got[n] = true
	}
	for i := range want {
		if name := fmt.Sprintf("%s-%d", c.name, i); !got[name] {
			c.faults.add("%s list of %d lacks %s, acknowledged before it", format, len(names), name)
			return
		}
	}
}

// saw records a resourceVersion shown to the client.
func (c *readingClient) saw(rv int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seenRV, c.reads = max(c.seenRV, rv), c.reads+1
}

// orderedWatch records every event of a watch of the ConfigMaps in order,
// and opens it again from the last resourceVersion it saw when it ends,
// as client-go's reflector does, until its context ends.
type orderedWatch struct {
	base    string
	from    int64
	mu      sync.Mutex
	events  []watchedEvent
	lastRV  int64
	resumed int
	faults  *faults
}

type watchedEvent struct {
	typ, name string
	rv        int64
}

// watchFrom starts an orderedWatch on base after rv.
func watchFrom(ctx context.Context, base string, rv int64, f *faults) *orderedWatch {
	w := &orderedWatch{base: base, from: rv, lastRV: rv, faults: f}
	go w.run(ctx, base)
	return w
}

func (w *orderedWatch) run(ctx context.Context, base string) {
	for ctx.Err() == nil {
		w.mu.Lock()
		from := w.lastRV
		w.mu.Unlock()
		if err := w.stream(ctx, base, from); err != nil && ctx.Err() == nil {
			w.faults.add("watch from %d: %v", from, err)
			return
		}
		w.mu.Lock()
		w.resumed++
		w.mu.Unlock()
		wait.Sleep(ctx, 100*time.Millisecond)
	}
}

// stream reads one watch request to its end. Errors: an answer that a
// client could not resume from (anything but 200 or 503, an ERROR event
// that is not a 503).
func (w *orderedWatch) stream(ctx context.Context, base string, from int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+configMaps+"?watch=true&resourceVersion="+strconv.FormatInt(from, 10), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil // the process or its database is away: try again
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("answered %d: %s", resp.StatusCode, out)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 4<<20)
	for lines.Scan() {
		if err := w.record(lines.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// record adds one event line.
func (w *orderedWatch) record(line []byte) error {
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return fmt.Errorf("event %s: %v", line, err)
	}
	if ev.Type == "ERROR" {
		if code := gjson.GetBytes(ev.Object, "code").Int(); code != http.StatusServiceUnavailable {
			return fmt.Errorf("ERROR event %s", ev.Object)
		}
		return nil
	}
	rv, err := rvOf(ev.Object)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, watchedEvent{ev.Type, gjson.GetBytes(ev.Object, "metadata.name").Str, rv})
	w.lastRV = max(w.lastRV, rv)
	return nil
}

// check waits until the watch has seen every write of acked, then checks
// that it saw each exactly once, as ADDED at its resourceVersion, and
// every event in resourceVersion order. (A write cut off by the end of
// the load or by a failover may have been stored unacknowledged: the
// watch may show it too, once.)
func (w *orderedWatch) check(t *testing.T, acked map[string]int64) {
	t.Helper()
	wait.Eventually(t, settleTimeout, func() (bool, string) {
		missing := w.missing(acked)
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(missing) == 0, fmt.Sprintf("the watch of %s from %d to see every acknowledged write (it saw %d events up to %d, resumed %d times); missing %d: %s",
			w.base, w.from, len(w.events), w.lastRV, w.resumed, len(missing), firstTen(missing))
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]int{}
	var prev int64
	for _, ev := range w.events {
		if ev.rv <= prev {
			t.Errorf("event %s %s at %d after one at %d: out of order or repeated", ev.typ, ev.name, ev.rv, prev)
		}
		prev = ev.rv
		seen[ev.name]++
		if want, ok := acked[ev.name]; (ok && want != ev.rv) || ev.typ != "ADDED" || seen[ev.name] > 1 {
			t.Errorf("event %s %s at %d (seen %d times); acknowledged at %d", ev.typ, ev.name, ev.rv, seen[ev.name], want)
		}
	}
	t.Logf("the watch saw %d events in order, each once, resumed %d times", len(w.events), w.resumed)
}

// missing returns the writes of acked that the watch has not seen.
func (w *orderedWatch) missing(acked map[string]int64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]bool{}
	for _, ev := range w.events {
		seen[ev.name] = true
	}
	var out []string
	for name, rv := range acked {
		if !seen[name] {
			out = append(out, fmt.Sprintf("%s at %d", name, rv))
		}
	}
	return out
}
