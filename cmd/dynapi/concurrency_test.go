package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
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

	var watches []*watch
	for _, s := range []watchSpec{
		{name: "widgets on A", proc: 0, kind: widgets, version: "v1"},
		{name: "widgets on B", proc: 1, kind: widgets, version: "v1"},
		{name: "gold widgets on B (label selector)", proc: 1, kind: widgets, version: "v1", gold: true},
		{name: "pipes in v3 on B", proc: 1, kind: pipes, version: "v3"},
		{name: "pipes in v1 on A", proc: 0, kind: pipes, version: "v1"},
	} {
		watches = append(watches, c.startWatch(ctx, t, s, c.listRV(t, 1-s.proc, s.kind), &reading))
	}
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
	if kind == widgets {
		return "/apis/shop.example.com/" + version + "/namespaces/" + c.ns + "/widgets"
	}
	return "/apis/plumbing.example.com/" + version + "/namespaces/" + c.ns + "/pipes"
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

// listRV is the resourceVersion of the newest state of kind, through proc.
func (c *cluster) listRV(t *testing.T, proc int, kind string) int64 {
	t.Helper()
	version := "v1"
	if kind == pipes {
		version = "v2"
	}
	out := mustDo(t, http.StatusOK, http.MethodGet, c.procs[proc].url+c.path(kind, version)+"?limit=1", "")
	rv, err := parseRV(gjson.Get(out, "metadata.resourceVersion"))
	if err != nil {
		t.Fatalf("list %s: %v: %s", kind, err, out)
	}
	return rv
}

// startMidRun waits until a quarter of the writes are acknowledged, then
// starts a watch on B from a paginated list read through A, as informers
// do, and a watch-list (sendInitialEvents) on A, whose initial state is
// checked as well.
func (c *cluster) startMidRun(ctx context.Context, t *testing.T, led *ledger, reading *sync.WaitGroup) []*watch {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for led.len() < concurrentWriters*opsPerWriter/4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r, err := c.listPages(ctx, 0)
	if err != nil {
		t.Fatalf("paginated list mid-run: %v", err)
	}
	fromList := c.startWatch(ctx, t, watchSpec{name: "widgets on B from a paginated list mid-run", proc: 1, kind: widgets, version: "v1"}, r.rv, reading)
	initial := c.startWatch(ctx, t, watchSpec{name: "widgets on A, watch-list mid-run", proc: 0, kind: widgets, version: "v1", initial: true}, 0, reading)
	select {
	case <-initial.started:
	case <-initial.ended:
		t.Fatalf("watch-list ended before its initial events: %v", initial.problems)
	case <-time.After(settleTimeout):
		t.Fatalf("watch-list: no initial-events-end bookmark within %s", settleTimeout)
	}
	return []*watch{fromList, initial}
}

// newBody is a new object of kind in version, its marker in spec
// (description for widgets, pressure for pipes).
func newBody(kind, version, name string, marker int, gold bool) []byte {
	meta := fmt.Sprintf(`"metadata":{"name":%q,"labels":{"tier":%q}}`, name, tier(gold))
	if kind == widgets {
		return fmt.Appendf(nil, `{"apiVersion":"shop.example.com/%s","kind":"Widget",%s,"spec":{"size":%d,"description":"%d"}}`,
			version, meta, 1+marker%100, marker)
	}
	spec := map[string]string{
		"v1": `"diameter":100,"material":"steel"`,
		"v2": `"size":{"diameter":100},"material":"Steel"`,
		"v3": `"dimensions":{"diameter":100},"material":"Steel","notes":"written in v3"`,
	}[version]
	return fmt.Appendf(nil, `{"apiVersion":"plumbing.example.com/%s","kind":"Pipe",%s,"spec":{%s,"pressure":%d}}`, version, meta, spec, marker)
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

func tier(gold bool) string {
	if gold {
		return "gold"
	}
	return "silver"
}

func isGold(obj []byte) bool {
	return gjson.GetBytes(obj, "metadata.labels.tier").Str == "gold"
}

func parseRV(v gjson.Result) (int64, error) {
	rv, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil || rv <= 0 {
		return 0, fmt.Errorf("bad resourceVersion %q", v.Raw)
	}
	return rv, nil
}

// change is one change to one object: an acknowledged write or a watch
// event. marker tells which write made the state it carries.
type change struct {
	rv     int64
	typ    string // ADDED, MODIFIED, DELETED
	name   string
	marker string
}

func (ch change) String() string {
	return fmt.Sprintf("%s %s at %d (marker %s)", ch.typ, ch.name, ch.rv, ch.marker)
}

// write is an acknowledged write; for a delete, marker and gold are those
// of the last state, which the answer carries.
type write struct {
	change
	kind string
	gold bool
}

// ledger records the acknowledged writes by resourceVersion, and the
// markers of refused ones.
type ledger struct {
	mu      sync.Mutex
	writes  map[int64]write
	refused map[string]int // marker → status code
}

// acknowledge records a write from its answer.
func (l *ledger) acknowledge(typ, kind string, answer []byte) error {
	rv, err := parseRV(gjson.GetBytes(answer, "metadata.resourceVersion"))
	if err != nil {
		return fmt.Errorf("%s answer: %w: %s", typ, err, answer)
	}
	w := write{change{rv, typ, gjson.GetBytes(answer, "metadata.name").Str, markerOf(kind, answer)}, kind, isGold(answer)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, dup := l.writes[rv]; dup {
		return fmt.Errorf("resourceVersion %d acknowledged twice: %v and %v", rv, prev, w)
	}
	l.writes[rv] = w
	return nil
}

func (l *ledger) refuse(marker string, code int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[marker] = code
}

func (l *ledger) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

// of returns the acknowledged writes of kind in resourceVersion order.
func (l *ledger) of(kind string) []write {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []write
	for _, w := range l.writes {
		if w.kind == kind {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b write) int { return int(a.rv - b.rv) })
	return out
}

// stateAt replays the writes of kind up to rv: name → resourceVersion.
func (l *ledger) stateAt(kind string, rv int64) map[string]int64 {
	state := map[string]int64{}
	for _, w := range l.of(kind) {
		switch {
		case w.rv > rv:
			return state
		case w.typ == "DELETED":
			delete(state, w.name)
		default:
			state[w.name] = w.rv
		}
	}
	return state
}

// report logs the figures of the run.
func (l *ledger) report(t *testing.T, watches []*watch, lists *listLog) {
	t.Helper()
	counts := map[string]int{}
	for _, w := range l.writes {
		counts[w.kind+" "+w.typ]++
	}
	t.Logf("%d acknowledged writes %v, %d refused (409)", len(l.writes), counts, len(l.refused))
	for _, w := range watches {
		t.Logf("watch %q from %d: %d events, %d bookmarks, %d initial objects", w.name, w.from, len(w.events), w.bookmarks, len(w.initialState))
	}
	pages := 0
	for _, r := range lists.done {
		pages += r.pages
	}
	t.Logf("%d paginated lists of %d, %d pages", len(lists.done), pageLimit, pages)
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
	w.owned[name] = &held{kind: kind, version: version, body: out, created: gjson.GetBytes(out, "metadata.resourceVersion").Str}
	w.names = append(w.names, name)
	return w.led.acknowledge("ADDED", kind, out)
}

// update PUTs the object with the resourceVersion held, or, when stale,
// with the one it was created at, which must be refused.
func (w *writer) update(ctx context.Context, marker int, name string, h *held, stale bool) error {
	stale = stale && gjson.GetBytes(h.body, "metadata.resourceVersion").Str != h.created
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
	opts := `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"` +
		gjson.GetBytes(h.body, "metadata.resourceVersion").Str + `"}}`
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

// watchSpec says what one watcher watches.
type watchSpec struct {
	name    string
	proc    int // in cluster.procs
	kind    string
	version string // that events come in
	gold    bool   // labelSelector=tier=gold
	initial bool   // the watch-list protocol: the state first, then changes
}

// watch is one running watch and what it saw.
type watch struct {
	watchSpec
	apiVersion string
	started    chan struct{} // closed when from is known
	ended      chan struct{} // closed when the stream has ended

	mu           sync.Mutex
	from         int64            // the changes after it are expected
	live         bool             // past the initial state
	initialState map[string]int64 // name → resourceVersion of the initial ADDED events
	events       []change
	bookmarks    int
	lastBookmark int64
	lastRV       int64 // of the last event or bookmark
	problems     []string
}

// startWatch starts a watch from resourceVersion from (for the watch-list
// protocol, from the initial-events-end bookmark) with bookmarks.
func (c *cluster) startWatch(ctx context.Context, t *testing.T, s watchSpec, from int64, reading *sync.WaitGroup) *watch {
	t.Helper()
	w := &watch{watchSpec: s, from: from, live: !s.initial, lastRV: from, initialState: map[string]int64{},
		started: make(chan struct{}), ended: make(chan struct{})}
	w.apiVersion = "shop.example.com/" + s.version
	if s.kind == pipes {
		w.apiVersion = "plumbing.example.com/" + s.version
	}
	q := url.Values{"watch": {"true"}, "allowWatchBookmarks": {"true"}}
	if s.initial {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	} else {
		q.Set("resourceVersion", strconv.FormatInt(from, 10))
		close(w.started)
	}
	if s.gold {
		q.Set("labelSelector", "tier=gold")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.procs[s.proc].url+c.path(s.kind, s.version)+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatalf("watch %q: %v", s.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("watch %q = %d: %s", s.name, resp.StatusCode, out)
	}
	reading.Go(func() { w.read(ctx, resp.Body) })
	return w
}

// read reads the stream, one JSON event a line, until it ends.
func (w *watch) read(ctx context.Context, body io.ReadCloser) {
	defer close(w.ended)
	defer body.Close()
	lines := bufio.NewScanner(body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		w.handle(lines.Bytes())
	}
	if ctx.Err() == nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.problems = append(w.problems, fmt.Sprintf("the stream ended early: %v", lines.Err()))
	}
}

func (w *watch) handle(line []byte) {
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	err := json.Unmarshal(line, &ev)
	w.mu.Lock()
	defer w.mu.Unlock()
	problem := func(format string, args ...any) { w.problems = append(w.problems, fmt.Sprintf(format, args...)) }
	var rv int64
	if err == nil {
		rv, err = parseRV(gjson.GetBytes(ev.Object, "metadata.resourceVersion"))
	}
	ch := change{rv, ev.Type, gjson.GetBytes(ev.Object, "metadata.name").Str, markerOf(w.kind, ev.Object)}
	switch {
	case ev.Type == "ERROR" || err != nil:
		problem("bad event (%v): %s", err, line)
	case ev.Type == "BOOKMARK":
		w.bookmark(rv, ev.Object, problem)
	case gjson.GetBytes(ev.Object, "apiVersion").Str != w.apiVersion:
		problem("%v in %s, want %s", ch, gjson.GetBytes(ev.Object, "apiVersion").Str, w.apiVersion)
	case !w.live && ev.Type != "ADDED":
		problem("%v among the initial events", ch)
	case !w.live:
		w.initialState[ch.name] = rv
	default:
		if rv <= w.lastBookmark {
			problem("%v after a bookmark at %d", ch, w.lastBookmark)
		}
		w.events = append(w.events, ch)
		w.lastRV = max(w.lastRV, rv)
	}
}

// bookmark takes a BOOKMARK: the end of the initial events, or a promise
// that every event up to rv was sent.
func (w *watch) bookmark(rv int64, obj []byte, problem func(string, ...any)) {
	if !w.live {
		if gjson.GetBytes(obj, "metadata.annotations."+gjson.Escape("k8s.io/initial-events-end")).Str != "true" {
			problem("bookmark at %d before the initial-events-end one: %s", rv, obj)
			return
		}
		w.from, w.lastRV, w.live = rv, rv, true
		close(w.started)
		return
	}
	if rv < w.lastRV {
		problem("bookmark at %d after resourceVersion %d", rv, w.lastRV)
	}
	w.bookmarks++
	w.lastBookmark, w.lastRV = rv, max(w.lastRV, rv)
}

// expected returns the changes this watch must see, from the acknowledged
// writes: with the selector, an object that starts matching is ADDED and
// one that stops matching DELETED (in its last matching state).
func (w *watch) expected(l *ledger) []change {
	var want []change
	last := map[string]write{} // the state of each existing object
	for _, wr := range l.of(w.kind) {
		ch, ok := wr.change, true
		if w.gold {
			ch, ok = goldChange(wr, last)
		}
		if wr.typ == "DELETED" {
			delete(last, wr.name)
		} else {
			last[wr.name] = wr
		}
		if ok && wr.rv > w.from {
			want = append(want, ch)
		}
	}
	return want
}

// goldChange is what a watch of gold objects sees of wr, given the state
// of each object before it.
func goldChange(wr write, last map[string]write) (change, bool) {
	prev, existed := last[wr.name]
	now, was := wr.typ != "DELETED" && wr.gold, existed && prev.gold
	ch := wr.change
	switch {
	case now && was:
		ch.typ = "MODIFIED"
	case now:
		ch.typ = "ADDED"
	case was:
		ch.typ, ch.marker = "DELETED", prev.marker
	default:
		return ch, false
	}
	return ch, true
}

// waitForWatches waits until every watch has seen the last change it
// expects, or settleTimeout has passed.
func waitForWatches(t *testing.T, watches []*watch, wants [][]change) {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for i, w := range watches {
		if len(wants[i]) == 0 {
			t.Errorf("watch %q: no change expected; the test writes too little", w.name)
			continue
		}
		last := wants[i][len(wants[i])-1].rv
		for w.reached() < last {
			select {
			case <-w.ended:
			default:
				if time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
					continue
				}
			}
			w.mu.Lock()
			missing, _ := diffChanges(w.events, wants[i])
			t.Errorf("watch %q (from %d): saw up to resourceVersion %d, not %d, within %s; %d changes missing: %s",
				w.name, w.from, w.lastRV, last, settleTimeout, len(missing), firstChanges(missing))
			w.mu.Unlock()
			break
		}
	}
}

func (w *watch) reached() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastRV
}

// check compares what w saw with what it had to see; the stream has ended.
func (w *watch) check(t *testing.T, l *ledger, want []change) {
	t.Helper()
	for _, p := range w.problems {
		t.Errorf("watch %q: %s", w.name, p)
	}
	if w.initial {
		if d := diffState(w.initialState, l.stateAt(w.kind, w.from)); d != "" {
			t.Errorf("watch %q: initial state at %d: %s", w.name, w.from, d)
		}
	}
	last := w.from
	for _, ev := range w.events {
		if ev.rv <= last {
			t.Errorf("watch %q: %v after resourceVersion %d: reordered or duplicated", w.name, ev, last)
		}
		last = max(last, ev.rv)
	}
	missing, unexpected := diffChanges(w.events, want)
	if len(missing) > 0 {
		t.Errorf("watch %q (from %d): %d acknowledged changes missed: %s", w.name, w.from, len(missing), firstChanges(missing))
	}
	for _, ch := range unexpected[:min(len(unexpected), 10)] {
		why := "no such acknowledged write"
		if code, ok := l.refused[ch.marker]; ok {
			why = fmt.Sprintf("the write with this marker was refused with %d", code)
		}
		t.Errorf("watch %q (from %d): unexpected %v: %s (%d unexpected in all)", w.name, w.from, ch, why, len(unexpected))
	}
}

// diffChanges returns the changes of want that got lacks and those of got
// that want lacks, counting duplicates.
func diffChanges(got, want []change) (missing, unexpected []change) {
	count := map[change]int{}
	for _, ch := range want {
		count[ch]++
	}
	for _, ch := range got {
		if count[ch] > 0 {
			count[ch]--
		} else {
			unexpected = append(unexpected, ch)
		}
	}
	for _, ch := range want {
		if count[ch] > 0 {
			count[ch]--
			missing = append(missing, ch)
		}
	}
	return missing, unexpected
}

// firstChanges prints the first ten changes.
func firstChanges(chs []change) string {
	s := fmt.Sprint(chs[:min(len(chs), 10)])
	if len(chs) > 10 {
		s += " ..."
	}
	return s
}

// diffState describes how a state (name → resourceVersion) differs from
// the one wanted, or returns "".
func diffState(got, want map[string]int64) string {
	var d []string
	for name, rv := range want {
		if got[name] != rv {
			d = append(d, fmt.Sprintf("%s at %d, want %d", name, got[name], rv))
		}
	}
	for name, rv := range got {
		if _, ok := want[name]; !ok {
			d = append(d, fmt.Sprintf("%s at %d, want none", name, rv))
		}
	}
	if len(d) == 0 {
		return ""
	}
	slices.Sort(d)
	return fmt.Sprintf("%d of %d objects differ (0: absent): %v", len(d), len(want), d[:min(len(d), 10)])
}

// listResult is the state one paginated list showed.
type listResult struct {
	rv    int64
	pages int
	state map[string]int64 // name → resourceVersion
}

// listLog collects paginated lists.
type listLog struct {
	mu   sync.Mutex
	done []listResult
}

func (l *listLog) add(r listResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = append(l.done, r)
}

// whileWriting lists widgets in pages until done is closed, the first
// page of each list from process first, then alternately.
func (l *listLog) whileWriting(ctx context.Context, t *testing.T, c *cluster, first int, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		r, err := c.listPages(ctx, first)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("paginated list: %v", err)
			}
			return
		}
		l.add(r)
	}
}

// check compares each list with the state the writes made at its
// resourceVersion.
func (l *listLog) check(t *testing.T, led *ledger) {
	t.Helper()
	for _, r := range l.done {
		if d := diffState(r.state, led.stateAt(widgets, r.rv)); d != "" {
			t.Errorf("paginated list at %d (%d pages): %s", r.rv, r.pages, d)
		}
	}
}

// listPages lists the widgets in pages of pageLimit, following continue
// tokens, each page from the other process than the one before; every
// page must be at the first's resourceVersion.
func (c *cluster) listPages(ctx context.Context, first int) (listResult, error) {
	r := listResult{state: map[string]int64{}}
	q := url.Values{"limit": {strconv.Itoa(pageLimit)}}
	for page := 1; ; page++ {
		p := c.procs[(first+page-1)%2]
		code, out, err := c.do(ctx, http.MethodGet, p.url+c.path(widgets, "v1")+"?"+q.Encode(), "", nil)
		if err != nil {
			return r, err
		}
		if code != http.StatusOK {
			return r, fmt.Errorf("page %d from %s = %d: %s", page, p.name, code, out)
		}
		rv, err := parseRV(gjson.GetBytes(out, "metadata.resourceVersion"))
		switch {
		case err != nil:
			return r, fmt.Errorf("page %d from %s: %w", page, p.name, err)
		case page == 1:
			r.rv = rv
		case rv != r.rv:
			return r, fmt.Errorf("page %d from %s at resourceVersion %d, the first at %d: a list mixing states", page, p.name, rv, r.rv)
		}
		items := gjson.GetBytes(out, "items").Array()
		if len(items) > pageLimit {
			return r, fmt.Errorf("page %d from %s has %d items, more than the limit", page, p.name, len(items))
		}
		for _, it := range items {
			name := it.Get("metadata.name").Str
			if _, dup := r.state[name]; dup {
				return r, fmt.Errorf("page %d from %s repeats %s", page, p.name, name)
			}
			if r.state[name], err = parseRV(it.Get("metadata.resourceVersion")); err != nil {
				return r, fmt.Errorf("page %d from %s: %s: %w", page, p.name, name, err)
			}
		}
		r.pages++
		token := gjson.GetBytes(out, "metadata.continue").Str
		if token == "" {
			return r, nil
		}
		q.Set("continue", token)
	}
}
