package main

// The kit of the fault tests (faults_*_test.go): a write load whose
// acknowledged writes are compared with the stored rows, and a watch that
// records what it saw.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// faultWriters is how many clients write at once in the fault tests.
const faultWriters = 4

// configMaps is where the fault tests write.
const configMaps = "/api/v1/namespaces/default/configmaps"

// writeLoad creates ConfigMaps from faultWriters clients, each under a
// name of its own, and records each answer: an acknowledged write (201)
// must be stored; a refused one must be 503 with Retry-After, which
// client-go retries on its own; anything else is a fault.
type writeLoad struct {
	client *http.Client

	mu      sync.Mutex
	urls    []string         // the processes written to, in turn
	dropped map[string]bool  // processes killed: a write cut off there is no fault
	acked   map[string]int64 // name → resourceVersion
	cut     int
	refused int
	faults  []string
	running sync.WaitGroup
}

func newWriteLoad(urls ...string) *writeLoad {
	return &writeLoad{urls: urls, dropped: map[string]bool{}, acked: map[string]int64{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: faultWriters}}}
}

// start runs the writers until ctx ends; wait waits for them.
func (l *writeLoad) start(ctx context.Context, prefix string) {
	for id := range faultWriters {
		l.running.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				l.write(ctx, l.target(id+n), fmt.Sprintf("%s-%d-%d", prefix, id, n))
			}
		})
	}
}

func (l *writeLoad) wait() { l.running.Wait() }

// target is the process the n-th write goes to.
func (l *writeLoad) target(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.urls[n%len(l.urls)]
}

// drop stops writing to base, which is about to be killed: the writes
// in flight there may be cut off, which is no fault (nor acknowledged).
func (l *writeLoad) drop(base string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.urls = slices.DeleteFunc(l.urls, func(u string) bool { return u == base })
	l.dropped[base] = true
}

// write creates one ConfigMap and records the answer.
func (l *writeLoad) write(ctx context.Context, base, name string) {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"n":"1"}}`, name)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+configMaps, bytes.NewReader([]byte(body)))
	if err != nil {
		panic(err) // a constant URL
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.client.Do(req)
	if err != nil {
		l.cutOff(ctx, base, name, err)
		return
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		l.fault("create %s: read the answer: %v", name, err)
	case resp.StatusCode == http.StatusCreated:
		l.acknowledge(name, out)
	case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		l.mu.Lock()
		l.refused++
		l.mu.Unlock()
		wait.Sleep(ctx, 20*time.Millisecond) // not Retry-After's second: more writes meet the fault
	default:
		l.fault("create %s = %d (Retry-After %q): %s", name, resp.StatusCode, resp.Header.Get("Retry-After"), out)
	}
}

func (l *writeLoad) acknowledge(name string, answer []byte) {
	rv, err := rvOf(answer)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.faults = append(l.faults, fmt.Sprintf("create %s: %v: %s", name, err, answer))
		return
	}
	l.acked[name] = rv
}

// cutOff records a write that got no answer: a fault, unless the test
// ended it or killed its process.
func (l *writeLoad) cutOff(ctx context.Context, base, name string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.dropped[base]:
		l.cut++
	case ctx.Err() == nil:
		l.faults = append(l.faults, fmt.Sprintf("create %s: %v", name, err))
	}
}

func (l *writeLoad) fault(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.faults = append(l.faults, fmt.Sprintf(format, args...))
}

// check fails the test for each fault and each acknowledged write that
// base does not store as it was acknowledged.
func (l *writeLoad) check(t *testing.T, base string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.faults) > 0 {
		t.Errorf("%d faults: %s", len(l.faults), firstTen(l.faults))
	}
	stored := map[string]int64{}
	for _, it := range gjson.Get(mustDo(t, http.StatusOK, http.MethodGet, base+configMaps, ""), "items").Array() {
		rv, err := parseRV(it.Get("metadata.resourceVersion"))
		if err != nil {
			t.Fatal(err)
		}
		stored[it.Get("metadata.name").Str] = rv
	}
	lost := 0
	for name, rv := range l.acked {
		if stored[name] != rv {
			lost++
			t.Errorf("acknowledged %s at %d, stored at %d (0: absent)", name, rv, stored[name])
		}
	}
	t.Logf("%d writes acknowledged, %d lost, %d refused with 503 and Retry-After, %d cut off by a kill, %d faults",
		len(l.acked), lost, l.refused, l.cut, len(l.faults))
	if len(l.acked) == 0 {
		t.Error("no write was acknowledged")
	}
}

// ackedAfter returns the acknowledged writes after rv: name → resourceVersion.
func (l *writeLoad) ackedAfter(rv int64) map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int64{}
	for name, at := range l.acked {
		if at > rv {
			out[name] = at
		}
	}
	return out
}

// eventLog is what one watch stream carried until it ended.
type eventLog struct {
	mu     sync.Mutex
	seen   map[string]int64 // name → resourceVersion of ADDED events
	lastRV int64
	errors []string // the Status of each ERROR event
	ended  chan struct{}
}

// openWatch starts a watch of the ConfigMaps after rv and reads it in the
// background; it returns the answer's status code and, for a 200, the log.
func openWatch(ctx context.Context, t *testing.T, base string, rv int64) (int, string, *eventLog) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+configMaps+"?watch=true&resourceVersion="+strconv.FormatInt(rv, 10), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(out), nil
	}
	w := &eventLog{seen: map[string]int64{}, lastRV: rv, ended: make(chan struct{})}
	go w.read(resp.Body)
	return resp.StatusCode, "", w
}

func (w *eventLog) read(body io.ReadCloser) {
	defer close(w.ended)
	defer body.Close()
	lines := bufio.NewScanner(body)
	lines.Buffer(nil, 4<<20)
	for lines.Scan() {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		err := json.Unmarshal(lines.Bytes(), &ev)
		w.mu.Lock()
		if err != nil || ev.Type == "ERROR" {
			w.errors = append(w.errors, lines.Text())
		} else if rv, err := rvOf(ev.Object); err == nil {
			w.seen[gjson.GetBytes(ev.Object, "metadata.name").Str] = rv
			w.lastRV = max(w.lastRV, rv)
		}
		w.mu.Unlock()
	}
}

// missing returns how many of want the watch has not seen.
func (w *eventLog) missing(want map[string]int64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for name, rv := range want {
		if w.seen[name] != rv {
			out = append(out, fmt.Sprintf("%s at %d", name, rv))
		}
	}
	return out
}
