package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// BenchmarkListHTTP lists 10,000 Widgets of about 1.2 KB, shaped as
// dynapi-bench's (with the managedFields of a create through the API),
// through the real handler and a real PostgreSQL: a full list and a
// metadata-only one. Divide ns/op by 10,000 for the cost of a row. The
// server's own instructions per list, load-independent, under callgrind
// (the difference between two counts, so that the setup drops out):
//
//	go test -c -o list.test ./engine/httpapi/
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind ./list.test -test.run='^$' -test.bench=ListHTTP/full -test.benchtime=Nx
func BenchmarkListHTTP(b *testing.B) {
	const objects = 10000
	url := benchWidgets(b, objects)
	accepts := []struct{ name, accept string }{
		{"full", "application/json"},
		{"metadata", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
	}
	for _, a := range accepts {
		b.Run(a.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				if n = getBytes(b, url+"/apis/shop.example.com/v1/namespaces/default/widgets", a.accept); n < objects*100 {
					b.Fatalf("listed %d bytes, too few for %d objects", n, objects)
				}
			}
			b.ReportMetric(float64(n)/objects, "B/object")
		})
	}
}

// BenchmarkGetHTTP gets the Widgets of BenchmarkListHTTP one at a time,
// through the real handler and a real PostgreSQL: ns/op is one GET.
// Under callgrind (as BenchmarkListHTTP) it counts a GET's instructions.
func BenchmarkGetHTTP(b *testing.B) {
	const objects = 100
	url := benchWidgets(b, objects) + "/apis/shop.example.com/v1/namespaces/default/widgets/w"
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if n := getBytes(b, url+strconv.Itoa(i%objects), "application/json"); n < 1000 {
			b.Fatalf("got %d bytes, too few for a Widget", n)
		}
		i++
	}
}

// widgetTags pads a Widget to about 1.2 KB, as dynapi-bench does.
var widgetTags = `"` + strings.Repeat("t", 64) + `"` + strings.Repeat(`,"`+strings.Repeat("t", 64)+`"`, 10)

// benchWidgets serves dynapi's API over a fresh database holding n
// Widgets w0...w<n-1> in namespace default, labeled as dynapi-bench's,
// and returns its URL. w0 is created through the API; the others are
// copies of its row made in SQL, each with its own name, uid, labels and
// resourceVersion, and its event in the log as a create leaves it.
func benchWidgets(b *testing.B, n int) string {
	var snapshots atomic.Pointer[registry.Snapshot]
	db := pgtest.Open(b)
	api, _ := startControlPlaneOn(b, db, &snapshots, snapshots.Store, httpapi.Options{})
	srv := httptest.NewServer(api)
	b.Cleanup(srv.Close)
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w0","namespace":"default",` +
		`"labels":{"app":"dynapi-bench","bucket":"0","shard":"0"}},"spec":{"color":"green","size":1,` +
		`"description":"a widget made by dynapi-bench to measure the server","tags":[` + widgetTags + `]}}`
	resp, err := http.Post(srv.URL+"/apis/shop.example.com/v1/namespaces/default/widgets", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("create w0: %d", resp.StatusCode)
	}
	pgtest.Exec(b, db, strings.ReplaceAll(copyWidgets, "{n}", strconv.Itoa(n)))
	// One list first sets the new rows' hint bits, a write the timed lists
	// should not pay. (Not VACUUM ANALYZE: it deadlocked, now and then,
	// with the ANALYZE the store runs itself when a table grows.)
	getBytes(b, srv.URL+"/apis/shop.example.com/v1/namespaces/default/widgets", "application/json")
	return srv.URL
}

// copyWidgets copies w0's row as w1...w<{n}-1>, with their events. The
// copies differ from w0 where no default lies: they keep its defaults
// stamp, as the same creates through the API would have it.
const copyWidgets = `
WITH w0 AS (SELECT * FROM objects WHERE resource = 'widgets.shop.example.com' AND name = 'w0'),
g AS (SELECT i, 'w' || i AS name, nextval('resource_version') AS rv, gen_random_uuid() AS uid,
	jsonb_build_object('app', 'dynapi-bench', 'bucket', (i % 100)::text, 'shard', (i % 1000)::text) AS labels
	FROM generate_series(1, {n} - 1) i),
copies AS (
	INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body, labels, remainder, defaults_stamp)
	SELECT w0.resource, w0.namespace, g.name, g.uid, g.rv, w0.stored_version,
		with_resource_version(jsonb_set(jsonb_set(jsonb_set(w0.body, '{metadata,name}', to_jsonb(g.name)),
			'{metadata,uid}', to_jsonb(g.uid::text)), '{metadata,labels}', g.labels), g.rv), g.labels, w0.remainder,
		w0.defaults_stamp
	FROM w0, g
	RETURNING resource_version, resource, namespace, name, body, stored_version)
INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version)
SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version FROM copies`

// getBytes GETs url with accept and returns the length of its body.
func getBytes(b *testing.B, url, accept string) int64 {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return n
}
