package main

// TestConcurrentWritersTwoProcesses, its cluster of two dynapi processes,
// and the writers with the objects they write. The watchers it checks are
// in concurrency_watch_test.go; the ledger of acknowledged writes and the
// paginated lists checked against it in concurrency_ledger_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The figures of TestConcurrentWritersTwoProcesses.
const (
	concurrentWriters = 16
	opsPerWriter      = 150
	sharedWidgets     = 4 // widgets every writer updates, to cause conflicts
	pageLimit         = 7
	requestTimeout    = 30 * time.Second
	settleTimeout     = 30 * time.Second // for every watcher to see the last write
)

// The kinds written, by plural.
const (
	widgets = "widgets"
	pipes   = "pipes"
)

// Many writers send creates, updates (PUT with the resourceVersion they
// hold, and merge patches) and deletes of Widgets and Pipes alternately to
// two dynapi processes on one database, so that transactions commit out of
// resourceVersion order. Watchers on both processes, from lists, in a
// version that is not the storage version, with a label selector, and with
// the watch-list protocol, must each see every acknowledged write after
// their start exactly once and in order, and nothing else; paginated lists
// running meanwhile, each page from the other process, must each show the
// state at their resourceVersion exactly.
func TestConcurrentWritersTwoProcesses(t *testing.T) {
	dbURL, _ := startPostgres(t)
	c := &cluster{ns: fmt.Sprintf("concurrency-%d", time.Now().UnixNano()%1e9),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * concurrentWriters}}}
	c.procs[0] = startProcess(t, "A", dbURL)
	c.procs[1] = startProcess(t, "B", dbURL) // after A: A has migrated the database
	ctx, cancel := context.WithCancel(t.Context())
	var writing, listing, reading sync.WaitGroup
	t.Cleanup(func() { // before the processes stop
		cancel()
		writing.Wait()
		listing.Wait()
		reading.Wait()
		c.client.CloseIdleConnections()
	})
	mustDo(t, http.StatusCreated, http.MethodPost, c.procs[0].url+"/api/v1/namespaces",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+c.ns+`"}}`)

	watches := c.startEarly(ctx, t, &reading)
	led := &ledger{writes: map[int64]write{}, refused: map[string]int{}}
	for i := range sharedWidgets {
		c.create(t, led, c.procs[i%2], widgets, "v1", fmt.Sprintf("shared-%d", i), 1+i)
	}

	writersDone, began := make(chan struct{}), time.Now()
	for id := range concurrentWriters {
		w := &writer{c: c, id: id, led: led, owned: map[string]*held{}, rng: rand.New(rand.NewPCG(uint64(id), 42))}
		writing.Go(func() {
			if err := w.run(ctx, opsPerWriter); err != nil && ctx.Err() == nil {
				t.Errorf("writer %d: %v", id, err)
			}
		})
	}
	lists := &listLog{}
	for first := range 2 {
		listing.Go(func() { lists.whileWriting(ctx, t, c, first, writersDone) })
	}
	watches = append(watches, c.startMidRun(ctx, t, led, &reading)...)
	writing.Wait()
	close(writersDone)
	listing.Wait()
	if t.Failed() {
		t.FailNow() // a write whose outcome is unknown would make every comparison fail
	}
	// Last writes, gold, that every watcher sees: nothing may follow them.
	c.create(t, led, c.procs[0], widgets, "v1", "sentinel", 9_000_001)
	c.create(t, led, c.procs[1], pipes, "v2", "sentinel", 9_000_002)
	final, err := c.listPages(ctx, 0)
	if err != nil {
		t.Errorf("paginated list after the writes: %v", err)
	} else {
		lists.add(final)
	}

	wants := make([][]change, len(watches))
	for i, w := range watches {
		wants[i] = w.expected(led)
	}
	wrote, settling := time.Since(began), time.Now()
	waitForWatches(t, watches, wants)
	t.Logf("writes took %s; the watchers had seen them all %s later", wrote.Round(time.Millisecond), time.Since(settling).Round(time.Millisecond))
	cancel()
	reading.Wait()
	for i, w := range watches {
		w.check(t, led, wants[i])
	}
	lists.check(t, led)
	led.report(t, watches, lists)
}

// cluster is two dynapi processes on one database and the namespace the
// test writes in.
type cluster struct {
	procs  [2]*process
	ns     string
	client *http.Client
}

// path is the collection of kind in version in the test's namespace.
func (c *cluster) path(kind, version string) string {
	return "/apis/" + apiVersion(kind, version) + "/namespaces/" + c.ns + "/" + kind
}

// do sends one request; it fails only when no answer came.
func (c *cluster) do(ctx context.Context, method, url, contentType string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: read the answer: %w", method, url, err)
	}
	return resp.StatusCode, out, nil
}

// create creates an object from the test's goroutine and records it.
func (c *cluster) create(t *testing.T, led *ledger, p *process, kind, version, name string, marker int) {
	t.Helper()
	out := mustDo(t, http.StatusCreated, http.MethodPost, p.url+c.path(kind, version), string(newBody(kind, version, name, marker, true)))
	if err := led.acknowledge("ADDED", kind, []byte(out)); err != nil {
		t.Fatal(err)
	}
}

// apiVersion is the group/version of kind in version.
func apiVersion(kind, version string) string {
	if kind == widgets {
		return "shop.example.com/" + version
	}
	return "plumbing.example.com/" + version
}

// newBody is a new object of kind in version, its marker in spec
// (description for widgets, pressure for pipes).
func newBody(kind, version, name string, marker int, gold bool) []byte {
	meta := fmt.Sprintf(`"metadata":{"name":%q,"labels":{"tier":%q}}`, name, tier(gold))
	if kind == widgets {
		return fmt.Appendf(nil, `{"apiVersion":%q,"kind":"Widget",%s,"spec":{"size":%d,"description":"%d"}}`,
			apiVersion(kind, version), meta, 1+marker%100, marker)
	}
	spec := map[string]string{
		"v1": `"diameter":100,"material":"steel"`,
		"v2": `"size":{"diameter":100},"material":"Steel"`,
		"v3": `"dimensions":{"diameter":100},"material":"Steel","notes":"written in v3"`,
	}[version]
	return fmt.Appendf(nil, `{"apiVersion":%q,"kind":"Pipe",%s,"spec":{%s,"pressure":%d}}`, apiVersion(kind, version), meta, spec, marker)
}

// markerField is where the writes put their marker, unique to each write.
func markerField(kind string) string {
	if kind == widgets {
		return "spec.description"
	}
	return "spec.pressure"
}

// markerOf reads the marker of an object.
func markerOf(kind string, obj []byte) string {
	v := gjson.GetBytes(obj, markerField(kind))
	if v.Type == gjson.Number {
		return strconv.FormatFloat(v.Num, 'f', -1, 64)
	}
	return v.Str
}

// tier is the value of the tier label, which the gold watch selects on.
func tier(gold bool) string {
	if gold {
		return "gold"
	}
	return "silver"
}

// isGold tells whether an object has the gold tier label.
func isGold(obj []byte) bool {
	return gjson.GetBytes(obj, "metadata.labels.tier").Str == "gold"
}

// rvOf parses the resourceVersion of an object.
func rvOf(obj []byte) (int64, error) {
	return parseRV(gjson.GetBytes(obj, "metadata.resourceVersion"))
}

// parseRV parses a resourceVersion, which must be positive.
func parseRV(v gjson.Result) (int64, error) {
	rv, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil || rv <= 0 {
		return 0, fmt.Errorf("bad resourceVersion %q", v.Raw)
	}
	return rv, nil
}

// pipeVersions are the served versions of Pipe; v2 is the storage version.
var pipeVersions = []string{"v1", "v2", "v3"}

// writer sends random writes of its own objects, and updates of the shared
// widgets, alternately to the two processes.
type writer struct {
	c     *cluster
	id    int
	rng   *rand.Rand
	led   *ledger
	owned map[string]*held
	names []string // of owned, in creation order: picks follow the seed
	sent  int      // requests sent, to alternate the processes
}

// held is what a writer knows of one of its objects: its last answer.
type held struct {
	kind, version string // body is in version
	body          []byte
	created       string // the resourceVersion at creation, stale once updated
}

// rv is the resourceVersion of the object as last answered.
func (h *held) rv() string {
	return gjson.GetBytes(h.body, "metadata.resourceVersion").Str
}

func (w *writer) run(ctx context.Context, ops int) error {
	for op := range ops {
		if err := w.step(ctx, (w.id+1)*10_000+op); err != nil {
			return fmt.Errorf("write %d: %w", op, err)
		}
	}
	return nil
}

// step makes one write with the given marker.
func (w *writer) step(ctx context.Context, marker int) error {
	r := w.rng.IntN(100)
	if len(w.names) < 2 || r < 30 {
		return w.create(ctx, marker)
	}
	i := w.rng.IntN(len(w.names))
	name := w.names[i]
	switch h := w.owned[name]; {
	case r < 55:
		return w.update(ctx, marker, name, h, false)
	case r < 60:
		return w.update(ctx, marker, name, h, true)
	case r < 75:
		return w.patch(ctx, marker, name, h)
	case r < 90:
		w.names = slices.Delete(w.names, i, i+1)
		return w.remove(ctx, name, h)
	}
	return w.contend(ctx, marker)
}

// send sends a request to the next process and checks that the status
// code is one of want.
func (w *writer) send(ctx context.Context, method, path, contentType string, body []byte, want ...int) (int, []byte, error) {
	p := w.c.procs[(w.id+w.sent)%2]
	w.sent++
	code, out, err := w.c.do(ctx, method, p.url+path, contentType, body)
	if err == nil && !slices.Contains(want, code) {
		err = fmt.Errorf("%s %s on %s = %d, want %v: %s", method, path, p.name, code, want, out)
	}
	return code, out, err
}

func (w *writer) create(ctx context.Context, marker int) error {
	kind, version := widgets, "v1"
	if w.rng.IntN(4) == 0 {
		kind, version = pipes, pipeVersions[w.rng.IntN(len(pipeVersions))]
	}
	name := fmt.Sprintf("w%02d-%d", w.id, marker%10_000)
	_, out, err := w.send(ctx, http.MethodPost, w.c.path(kind, version), "application/json",
		newBody(kind, version, name, marker, w.rng.IntN(2) == 0), http.StatusCreated)
	if err != nil {
		return err
	}
	h := &held{kind: kind, version: version, body: out}
	h.created = h.rv()
	w.owned[name] = h
	w.names = append(w.names, name)
	return w.led.acknowledge("ADDED", kind, out)
}

// update PUTs the object with the resourceVersion held, or, when stale,
// with the one it was created at, which must be refused.
func (w *writer) update(ctx context.Context, marker int, name string, h *held, stale bool) error {
	stale = stale && h.rv() != h.created
	body, err := setMarker(h.kind, h.body, marker, w.rng.IntN(2) == 0)
	if err == nil && stale {
		body, err = sjson.SetBytes(body, "metadata.resourceVersion", h.created)
	}
	if err != nil {
		return err
	}
	want := http.StatusOK
	if stale {
		want = http.StatusConflict
	}
	_, out, err := w.send(ctx, http.MethodPut, w.c.path(h.kind, h.version)+"/"+name, "application/json", body, want)
	if err != nil {
		return err
	}
	if stale {
		w.led.refuse(strconv.Itoa(marker), want)
		return nil
	}
	h.body = out
	return w.led.acknowledge("MODIFIED", h.kind, out)
}

// patch sends a JSON merge patch without a resourceVersion, for a pipe
// through any of its versions.
func (w *writer) patch(ctx context.Context, marker int, name string, h *held) error {
	version := h.version
	if h.kind == pipes {
		version = pipeVersions[w.rng.IntN(len(pipeVersions))]
	}
	patch, err := setMarker(h.kind, []byte(`{}`), marker, w.rng.IntN(2) == 0)
	if err != nil {
		return err
	}
	_, out, err := w.send(ctx, http.MethodPatch, w.c.path(h.kind, version)+"/"+name, "application/merge-patch+json", patch, http.StatusOK)
	if err != nil {
		return err
	}
	h.body, h.version = out, version
	return w.led.acknowledge("MODIFIED", h.kind, out)
}

// remove deletes the object with its resourceVersion as precondition.
func (w *writer) remove(ctx context.Context, name string, h *held) error {
	delete(w.owned, name)
	opts := `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"` + h.rv() + `"}}`
	_, out, err := w.send(ctx, http.MethodDelete, w.c.path(h.kind, h.version)+"/"+name, "application/json", []byte(opts), http.StatusOK)
	if err != nil {
		return err
	}
	return w.led.acknowledge("DELETED", h.kind, out)
}

// contend reads a shared widget through one process and PUTs it through
// the other: other writers may have changed it meanwhile (409).
func (w *writer) contend(ctx context.Context, marker int) error {
	path := w.c.path(widgets, "v1") + fmt.Sprintf("/shared-%d", w.rng.IntN(sharedWidgets))
	_, cur, err := w.send(ctx, http.MethodGet, path, "", nil, http.StatusOK)
	if err != nil {
		return err
	}
	body, err := setMarker(widgets, cur, marker, w.rng.IntN(2) == 0)
	if err != nil {
		return err
	}
	code, out, err := w.send(ctx, http.MethodPut, path, "application/json", body, http.StatusOK, http.StatusConflict)
	if err != nil || code == http.StatusConflict {
		w.led.refuse(strconv.Itoa(marker), code)
		return err
	}
	return w.led.acknowledge("MODIFIED", widgets, out)
}

// setMarker sets the marker and the tier label of an object, or of a patch.
func setMarker(kind string, body []byte, marker int, gold bool) ([]byte, error) {
	var value any = marker
	if kind == widgets {
		value = strconv.Itoa(marker)
	}
	body, err := sjson.SetBytes(body, markerField(kind), value)
	if err != nil {
		return nil, fmt.Errorf("set the marker: %w", err)
	}
	if body, err = sjson.SetBytes(body, "metadata.labels.tier", tier(gold)); err != nil {
		return nil, fmt.Errorf("set the tier: %w", err)
	}
	return body, nil
}
