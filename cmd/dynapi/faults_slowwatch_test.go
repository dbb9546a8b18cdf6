package main

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// The figures of TestWatcherThatNeverReads.
const (
	bigValue = 256 << 10 // bytes of data in each ConfigMap written
	// droppedWithin bounds how long the server keeps a watcher that does
	// not read once its connection is full: the watch write timeout (10 s)
	// and time to fill the buffers.
	droppedWithin = 30 * time.Second
	// heapBound bounds the server's Go heap meanwhile (the most it took
	// from the system, go_memstats_heap_sys_bytes, which does not shrink):
	// the events kept in memory (at most 32 MiB) with the collector's
	// headroom (GOGC=200), a request at a time; not every event written
	// (40 MiB and more). The heap rather than the resident memory, which
	// the race detector multiplies.
	heapBound = 200 << 20
)

// A watcher that never reads, while large objects are written, is dropped
// after a bound, as kube's cacher drops a watcher whose buffer stays full;
// the server's memory stays bounded meanwhile.
func TestWatcherThatNeverReads(t *testing.T) {
	dbURL, _ := startPostgres(t)
	p := startProcess(t, "A", dbURL)
	conn := dialKept(t, strings.TrimPrefix(p.url, "http://"))
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4 << 10) // fills sooner
	}
	fmt.Fprintf(conn, "GET %s?watch=true&resourceVersion=%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", configMaps, listRVOf(t, p.url))
	wait.Eventually(t, processStartTimeout, func() (bool, string) {
		n := openWatches(t, p.url)
		return n == 1, fmt.Sprintf("the watch to be open (%d open)", n)
	})
	value := strings.Repeat("x", bigValue)
	written := 0
	took := wait.Eventually(t, droppedWithin, func() (bool, string) {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-%d"},"data":{"v":%q}}`, written, value)
		mustDo(t, http.StatusCreated, http.MethodPost, p.url+configMaps, body)
		written++
		n := openWatches(t, p.url)
		return n == 0, fmt.Sprintf("the watcher that does not read to be dropped (%d written, %d watches open)", written, n)
	})
	heap := metricValue(t, p.url, "go_memstats_heap_sys_bytes")
	t.Logf("dropped after %d objects of %d KiB, %s; server heap at most %d MiB", written, bigValue>>10, took.Round(time.Second), heap>>20)
	if heap > heapBound {
		t.Errorf("server heap %d MiB, want at most %d MiB", heap>>20, heapBound>>20)
	}
}

// openWatches is the number of watches p has open
// (apiserver_longrunning_requests).
func openWatches(t *testing.T, base string) int {
	t.Helper()
	n := 0
	for _, m := range longRunning.FindAllStringSubmatch(mustDo(t, http.StatusOK, http.MethodGet, base+"/metrics", ""), -1) {
		v, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		n += v
	}
	return n
}

var longRunning = regexp.MustCompile(`(?m)^apiserver_longrunning_requests\{[^}]*verb="WATCH"[^}]*\} (\d+)$`)

// metricValue is the value of an unlabelled metric of p's /metrics.
func metricValue(t *testing.T, base, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(mustDo(t, http.StatusOK, http.MethodGet, base+"/metrics", ""))
	if m == nil {
		t.Fatalf("no %s in /metrics", name)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(v)
}
