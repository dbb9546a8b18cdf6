package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
	"github.com/dynapi/dynapi/internal/wait"
)

// hostPortCRD is the definition of Kubernetes' e2e spec
// CustomResourceFieldSelectors: v1 (stored) selects on .hostPort, v2 on
// .host and .port, converted by a webhook.
func hostPortCRD(hook map[string]any) string {
	cfg, _ := json.Marshal(hook) // plain strings
	version := func(name string, storage bool, props, fields string) string {
		return fmt.Sprintf(`{"name":%q,"served":true,"storage":%t,"schema":{"openAPIV3Schema":{"type":"object","properties":%s}},"selectableFields":%s}`,
			name, storage, props, fields)
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"e2e-test-crds.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"e2e-test-crds","kind":"E2eTestCrd","listKind":"E2eTestCrdList"},
"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1","v1beta1"],"clientConfig":` + string(cfg) + `}},
"versions":[` + version("v1", true, `{"hostPort":{"type":"string"}}`, `[{"jsonPath":".hostPort"}]`) + `,` +
		version("v2", false, `{"host":{"type":"string"},"port":{"type":"string"}}`, `[{"jsonPath":".host"},{"jsonPath":".port"}]`) + `]}}`
}

// TestCustomResourceFieldSelectors follows Kubernetes' e2e spec
// (test/e2e/apimachinery/crd_selectable_fields.go) on a definition created
// through the API and converted by a webhook: lists and watches with field
// selectors on either version's selectable fields see exactly the objects
// that match in that version, before and after a delete and an update.
func TestCustomResourceFieldSelectors(t *testing.T) {
	dbURL, _ := startPostgres(t)
	w := startConversionWebhook(t)
	w.hook.Convert = webhooktest.HostPort
	base := "http://" + startMain(t, Config{DatabaseURL: dbURL, WebhookServiceMap: w.serviceMap}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, hostPortCRD(w.byURL()))
	v1 := base + "/apis/stable.example.com/v1/namespaces/default/e2e-test-crds"
	v2 := base + "/apis/stable.example.com/v2/namespaces/default/e2e-test-crds"
	waitFor(t, http.StatusOK, strings.TrimPrefix(v2, base), base)

	watches := []struct {
		path, selector string
		added, deleted []string // after the creates; deleted, after the changes too
	}{
		{v2, "host=host1", []string{"a", "b"}, []string{"a", "b"}},
		{v2, "host=host1,port=80", []string{"a"}, []string{"a"}},
		{v1, "hostPort=host1:80", []string{"a"}, []string{"a"}},
	}
	var streams []*selectedEvents
	for _, ws := range watches {
		streams = append(streams, watchSelected(t, ws.path, ws.selector))
	}
	for name, spec := range map[string]string{"a": `"host":"host1","port":"80"`, "b": `"host":"host1","port":"8080"`, "c": `"host":"host2"`} {
		mustDo(t, http.StatusCreated, http.MethodPost, v2,
			`{"apiVersion":"stable.example.com/v2","kind":"E2eTestCrd","metadata":{"name":"`+name+`"},`+spec+`}`)
	}
	lists := []struct {
		path, selector string
		want           []string
	}{
		{v2, "host=host1", []string{"a", "b"}},
		{v2, "host=host1,port=80", []string{"a"}},
		{v1, "hostPort=host1:80", []string{"a"}},
		{v1, "hostPort=host1:8080", []string{"b"}},
		{v2, "host!=host1", []string{"c"}},
	}
	for _, l := range lists {
		if got := listSelected(t, l.path, l.selector); !slices.Equal(got, l.want) {
			t.Errorf("list %s?fieldSelector=%s = %v, want %v", l.path, l.selector, got, l.want)
		}
	}
	for i, ws := range watches {
		streams[i].wait(t, ws.added, nil)
	}

	mustDo(t, http.StatusOK, http.MethodDelete, v2+"?fieldSelector="+url.QueryEscape("host=host1,port=80"), `{"gracePeriodSeconds":0}`)
	if code, out := sendAs(t, http.MethodPatch, v2+"/b", "application/merge-patch+json", `{"host":"host2"}`); code != http.StatusOK {
		t.Fatalf("patch b: %d %s", code, out)
	}
	for _, l := range []struct{ path, selector string }{{v2, "host=host1"}, {v2, "host=host1,port=80"}, {v1, "hostPort=host1:80"}} {
		if got := listSelected(t, l.path, l.selector); len(got) != 0 {
			t.Errorf("list %s?fieldSelector=%s after the changes = %v, want none", l.path, l.selector, got)
		}
	}
	for i, ws := range watches {
		streams[i].wait(t, ws.added, ws.deleted)
	}
}

// listSelected lists path with a field selector and returns the names.
func listSelected(t *testing.T, path, selector string) []string {
	t.Helper()
	out := mustDo(t, http.StatusOK, http.MethodGet, path+"?fieldSelector="+url.QueryEscape(selector), "")
	var names []string
	for _, n := range gjson.Get(out, "items.#.metadata.name").Array() {
		names = append(names, n.Str)
	}
	return names
}

// selectedEvents accumulates the names a watch saw ADDED and DELETED, as
// the e2e spec's watchAccumulator does.
type selectedEvents struct {
	mu             sync.Mutex
	added, deleted []string
}

// watchSelected watches path with a field selector from now on.
func watchSelected(t *testing.T, path, selector string) *selectedEvents {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, path+"?watch=1&fieldSelector="+url.QueryEscape(selector), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s?fieldSelector=%s: %d", path, selector, resp.StatusCode)
	}
	s := &selectedEvents{}
	go func() {
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			ev := gjson.Parse(lines.Text())
			s.mu.Lock()
			switch name := ev.Get("object.metadata.name").Str; ev.Get("type").Str {
			case "ADDED":
				s.added = append(s.added, name)
			case "DELETED":
				s.deleted = append(s.deleted, name)
			}
			s.mu.Unlock()
		}
	}()
	return s
}

// wait waits until the watch saw exactly added and deleted (in any order).
func (s *selectedEvents) wait(t *testing.T, added, deleted []string) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		a, d := slices.Sorted(slices.Values(s.added)), slices.Sorted(slices.Values(s.deleted))
		return slices.Equal(a, added) && slices.Equal(d, deleted), fmt.Sprintf("added %v deleted %v, want %v %v", a, d, added, deleted)
	})
}
