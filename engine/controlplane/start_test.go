package controlplane_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

// policy lets system:anonymous (no authenticator is configured) write
// Events and CustomResourceDefinitions, and read the OpenAPI document
// and the metrics, and nothing else beyond kube's bootstrap roles.
const policy = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: composition}
rules:
- apiGroups: ["", "apiextensions.k8s.io", "stable.example.com"]
  resources: [events, customresourcedefinitions, crontabs]
  verbs: ["*"]
- nonResourceURLs: [/openapi/v2, /metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: composition}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: composition}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:anonymous"}]
`

// indexed records the field indexes asked of the store, which makes them.
type indexed struct {
	controlplane.FieldIndexer
	mu        sync.Mutex
	resources map[engine.GroupResource]bool
}

func (x *indexed) EnsureFieldIndexes(ctx context.Context, gr engine.GroupResource, paths []string) error {
	err := x.FieldIndexer.EnsureFieldIndexes(ctx, gr, paths)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.resources[gr] = err == nil
	return err
}

func (x *indexed) made(gr engine.GroupResource) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.resources[gr]
}

// A control plane started from a Config as `dynapi serve` builds it
// serves all that serve does: it listens; the definition files load, with
// their metrics; RBAC authorizes with the policy; the built-in Event
// kind's selectable fields are indexed and select; a
// CustomResourceDefinition created through the API is served; the
// OpenAPI document is ready.
func TestStartComposesServe(t *testing.T) {
	kit := servicetest.Open(t)
	fields := &indexed{FieldIndexer: kit.Store, resources: map[engine.GroupResource]bool{}}
	cp, err := controlplane.Start(context.Background(), controlplane.Config{
		Service: kit.Service, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Files: &controlplane.Files{Schemas: "../../schemas", Conversions: "../../conversions"},
		HTTP:  httpapi.Options{Ready: kit.Store.Ping, Metrics: controlplane.NewMetrics()},
		RBAC:  &controlplane.RBAC{Policy: []byte(policy)}, Collect: kit.Store, FieldIndexes: fields,
		Serving: &controlplane.Serving{Listen: "127.0.0.1:0"},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	base := "http://" + cp.Addr()

	do(t, http.StatusForbidden, "GET", base+"/api/v1/namespaces", "")
	for _, name := range []string{"a", "b"} {
		do(t, http.StatusCreated, "POST", base+"/api/v1/namespaces/default/events", `{"apiVersion":"v1","kind":"Event",
			"metadata":{"name":"`+name+`"},"involvedObject":{"kind":"Pod","name":"`+name+`"},"reason":"Started"}`)
	}
	list := do(t, http.StatusOK, "GET", base+"/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Db", "")
	if names := gjson.Get(list, "items.#.metadata.name").String(); names != `["b"]` {
		t.Errorf("events with involvedObject.name=b: %s", names)
	}
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		return fields.made(engine.GroupResource{Resource: "events"}), "the Event kind's field indexes"
	})

	do(t, http.StatusCreated, "POST", base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", cronTabs)
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		code, body := get(t, base+"/apis/stable.example.com/v1/namespaces/default/crontabs")
		return code == http.StatusOK, "crontabs served: " + body
	})

	if v2 := do(t, http.StatusOK, "GET", base+"/openapi/v2", ""); !gjson.Get(v2, `definitions.io\.k8s\.api\.core\.v1\.Event`).Exists() {
		t.Errorf("/openapi/v2 has no Event: %.300s", v2)
	}
	if metrics := do(t, http.StatusOK, "GET", base+"/metrics", ""); !strings.Contains(metrics, "dynapi_definitions_loaded") {
		t.Errorf("/metrics lacks the reloader's dynapi_definitions_loaded")
	}
}

// cronTabs is a CustomResourceDefinition created through the API.
const cronTabs = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"crontabs.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced",
"names":{"plural":"crontabs","kind":"CronTab"},"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// do sends a request, with a JSON body unless body is "", and fails the
// test unless it answers want; it returns the body.
func do(t *testing.T, want int, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	code, out := send(t, req)
	if code != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, url, code, want, out)
	}
	return out
}

// get sends a GET and returns the code and the body of the answer.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}
