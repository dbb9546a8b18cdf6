package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
)

// thingCRD is a definition converted by a webhook: v1 (stored) has
// spec.size, v2 spec.dimensions.size, as webhooktest.Conversion converts.
func thingCRD(plural, kind string, clientConfig map[string]any, reviews ...string) string {
	schema := func(spec string) string {
		return `{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":` + spec +
			`},"status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}`
	}
	subresources := func(size string) string {
		return `{"status":{},"scale":{"specReplicasPath":"` + size + `","statusReplicasPath":".status.replicas"}}`
	}
	cfg, _ := json.Marshal(clientConfig)
	rv, _ := json.Marshal(reviews)
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"%s.conv.example.com"},"spec":{"group":"conv.example.com","scope":"Namespaced",
"names":{"plural":%q,"kind":%q},
"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":%s,"clientConfig":%s}},
"versions":[{"name":"v1","served":true,"storage":true,"schema":%s,"subresources":%s},
{"name":"v2","served":true,"storage":false,"schema":%s,"subresources":%s}]}}`,
		plural, plural, kind, rv, cfg, schema(`{"size":{"type":"integer"}}`), subresources(".spec.size"),
		schema(`{"dimensions":{"type":"object","properties":{"size":{"type":"integer"}}}}`), subresources(".spec.dimensions.size"))
}

// conversionWebhook is a webhook program a test runs: HTTPS with a
// certificate of a test CA for 127.0.0.1 and for its service
// (convert.hooks.svc unless told), and a service map that sends that
// service to it.
type conversionWebhook struct {
	hook       *webhooktest.Conversion
	srv        *httptest.Server
	caBundle   string // base64, as in a CRD
	serviceMap string // the --webhook-service-map file
}

func startConversionWebhook(t *testing.T) *conversionWebhook {
	t.Helper()
	return startServiceWebhook(t, "hooks", "convert", &webhooktest.Conversion{})
}

// startServiceWebhook runs hook as the service namespace/name.
func startServiceWebhook(t *testing.T, namespace, name string, hook *webhooktest.Conversion) *conversionWebhook {
	t.Helper()
	ca := webhooktest.NewCA(t, "webhook-ca")
	srv := webhooktest.StartTLS(t, ca.Serving(t, []string{name + "." + namespace + ".svc"}, net.IPv4(127, 0, 0, 1)), false, hook)
	serviceMap := filepath.Join(t.TempDir(), "services.yaml")
	if err := os.WriteFile(serviceMap, []byte(namespace+"/"+name+": "+strings.TrimPrefix(srv.URL, "https://")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &conversionWebhook{hook: hook, srv: srv, caBundle: base64.StdEncoding.EncodeToString(ca.PEM), serviceMap: serviceMap}
}

// byURL and byService are the two forms of a clientConfig for it.
func (c *conversionWebhook) byURL() map[string]any {
	return map[string]any{"url": c.srv.URL + "/convert", "caBundle": c.caBundle}
}

func (c *conversionWebhook) byService() map[string]any {
	return map[string]any{"caBundle": c.caBundle,
		"service": map[string]any{"namespace": "hooks", "name": "convert", "path": "/convert"}}
}

// calls counts the webhook's calls since the last, and checks each was
// made as kube makes them: to the path, with the timeout, in review.
func (c *conversionWebhook) calls(t *testing.T, review string) int {
	t.Helper()
	calls := c.hook.Calls()
	c.hook.Reset()
	for _, call := range calls {
		if call.Review != "apiextensions.k8s.io/"+review || call.Path != "/convert" || call.Query != "timeout=30s" {
			t.Errorf("call %+v; want a %s review to /convert?timeout=30s", call, review)
		}
	}
	return len(calls)
}

// TestConversionWebhook: a kind converted by a webhook, reached by url or
// by service (through --webhook-service-map), in a v1 or a v1beta1 review:
// create, get, list, watch, merge patch, apply and delete in each version
// go through it, once per write, read, list page or watch batch.
func TestConversionWebhook(t *testing.T) {
	url, _ := startPostgres(t)
	w := startConversionWebhook(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url, WebhookServiceMap: w.serviceMap}).Addr()
	tests := []struct {
		plural, kind string
		config       map[string]any
		review       string
	}{
		{"urlthings", "URLThing", w.byURL(), "v1"},
		{"servicethings", "ServiceThing", w.byService(), "v1"},
		{"betathings", "BetaThing", w.byURL(), "v1beta1"},
	}
	for _, tt := range tests {
		t.Run(tt.plural, func(t *testing.T) {
			mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, thingCRD(tt.plural, tt.kind, tt.config, tt.review))
			v1 := base + "/apis/conv.example.com/v1/namespaces/default/" + tt.plural
			v2 := base + "/apis/conv.example.com/v2/namespaces/default/" + tt.plural
			waitFor(t, http.StatusOK, strings.TrimPrefix(v2, base), base)
			w.calls(t, tt.review)
			s := thingSteps{t: t, kind: tt.kind, v1: v1, v2: v2, hook: w, review: tt.review}
			s.writes()
			s.lists()
			s.watches()
		})
	}
}

// thingSteps are the requests of TestConversionWebhook on one kind.
type thingSteps struct {
	t            *testing.T
	kind, v1, v2 string
	hook         *conversionWebhook
	review       string
}

// expect checks the webhook was called n times since the last check.
func (s thingSteps) expect(what string, n int) {
	s.t.Helper()
	if got := s.hook.calls(s.t, s.review); got != n {
		s.t.Errorf("%s: %d webhook calls; want %d", what, got, n)
	}
}

// sizeIn checks obj is in version v, with size as that version holds it.
func (s thingSteps) sizeIn(what, obj, v string, size int64) {
	s.t.Helper()
	path := "spec.size"
	if v == "v2" {
		path = "spec.dimensions.size"
	}
	if gjson.Get(obj, "apiVersion").Str != "conv.example.com/"+v || gjson.Get(obj, path).Int() != size ||
		(v == "v2" && gjson.Get(obj, "spec.size").Exists()) || (v == "v1" && gjson.Get(obj, "spec.dimensions").Exists()) {
		s.t.Errorf("%s: %s; want %s with %s %d", what, obj, v, path, size)
	}
}

// writes creates, reads, patches, applies and deletes in both versions.
func (s thingSteps) writes() {
	obj := func(v, name, spec string) string {
		return fmt.Sprintf(`{"apiVersion":"conv.example.com/%s","kind":%q,"metadata":{"name":%q},"spec":%s}`, v, s.kind, name, spec)
	}
	// Written in v2: converted to v1 to be stored, and back for the answer.
	s.sizeIn("create in v2", mustDo(s.t, http.StatusCreated, http.MethodPost, s.v2, obj("v2", "a", `{"dimensions":{"size":3}}`)), "v2", 3)
	s.expect("create in v2", 2)
	s.sizeIn("create in v1", mustDo(s.t, http.StatusCreated, http.MethodPost, s.v1, obj("v1", "b", `{"size":5}`)), "v1", 5)
	s.expect("create in v1, the storage version", 0)
	s.sizeIn("get in v1", mustDo(s.t, http.StatusOK, http.MethodGet, s.v1+"/a", ""), "v1", 3)
	s.sizeIn("get in v2", mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"/b", ""), "v2", 5)
	s.expect("get in v2", 1)
	_, patched := sendAs(s.t, http.MethodPatch, s.v2+"/a", "application/merge-patch+json", `{"spec":{"dimensions":{"size":4}}}`)
	s.sizeIn("merge patch in v2", patched, "v2", 4)
	s.expect("merge patch in v2: the stored object read, the patched one stored, the answer", 3)
	s.sizeIn("get in v1 after the patch", mustDo(s.t, http.StatusOK, http.MethodGet, s.v1+"/a", ""), "v1", 4)
	s.subresources()
	apply := func(v, spec string) string {
		code, out := sendAs(s.t, http.MethodPatch, "http://"+strings.TrimPrefix(map[string]string{"v1": s.v1, "v2": s.v2}[v], "http://")+"/c?fieldManager=tester",
			"application/apply-patch+yaml", obj(v, "c", spec))
		if code != http.StatusOK && code != http.StatusCreated {
			s.t.Fatalf("apply in %s = %d %s", v, code, out)
		}
		return out
	}
	s.sizeIn("apply in v2", apply("v2", `{"dimensions":{"size":6}}`), "v2", 6)
	s.hook.calls(s.t, s.review)
	s.sizeIn("get in v1 after apply", mustDo(s.t, http.StatusOK, http.MethodGet, s.v1+"/c", ""), "v1", 6)
	s.sizeIn("apply in v1", apply("v1", `{"size":7}`), "v1", 7)
	s.sizeIn("get in v2 after apply", mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"/c", ""), "v2", 7)
	s.hook.calls(s.t, s.review)
	s.sizeIn("delete in v2", mustDo(s.t, http.StatusOK, http.MethodDelete, s.v2+"/c", ""), "v2", 7)
	s.expect("delete in v2", 1)
}

// subresources updates, and writes status and scale, in v2.
func (s thingSteps) subresources() {
	a := mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"/a", "")
	s.hook.calls(s.t, s.review)
	put, err := sjson.Set(a, "spec.dimensions.size", 9)
	if err != nil {
		s.t.Fatal(err)
	}
	updated := mustDo(s.t, http.StatusOK, http.MethodPut, s.v2+"/a", put)
	s.sizeIn("update in v2", updated, "v2", 9)
	s.expect("update in v2: the stored object read, the update stored, the answer", 3)
	status, _ := sjson.Set(updated, "status.replicas", 2)
	if got := mustDo(s.t, http.StatusOK, http.MethodPut, s.v2+"/a/status", status); gjson.Get(got, "status.replicas").Int() != 2 {
		s.t.Errorf("status in v2: %s", got)
	}
	scale := mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"/a/scale", "")
	if gjson.Get(scale, "spec.replicas").Int() != 9 || gjson.Get(scale, "status.replicas").Int() != 2 {
		s.t.Errorf("scale in v2: %s", scale)
	}
	_, scaled := sendAs(s.t, http.MethodPatch, s.v2+"/a/scale", "application/merge-patch+json", `{"spec":{"replicas":4}}`)
	if gjson.Get(scaled, "spec.replicas").Int() != 4 {
		s.t.Errorf("scale patched in v2: %s", scaled)
	}
	s.sizeIn("get in v1 after status and scale", mustDo(s.t, http.StatusOK, http.MethodGet, s.v1+"/a", ""), "v1", 4)
	s.hook.calls(s.t, s.review)
}

// lists lists in v2: one call per page.
func (s thingSteps) lists() {
	list := mustDo(s.t, http.StatusOK, http.MethodGet, s.v2, "")
	if n := gjson.Get(list, "items.#").Int(); n != 2 {
		s.t.Fatalf("list in v2: %d items; want 2: %s", n, list)
	}
	for _, item := range gjson.Get(list, "items").Array() {
		if !item.Get("spec.dimensions.size").Exists() || item.Get("apiVersion").Str != "conv.example.com/v2" {
			s.t.Errorf("list in v2: item %s", item.Raw)
		}
	}
	s.expect("list in v2", 1)
	page := mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"?limit=1", "")
	next := mustDo(s.t, http.StatusOK, http.MethodGet, s.v2+"?limit=1&continue="+gjson.Get(page, "metadata.continue").Str, "")
	s.sizeIn("second page", gjson.Get(next, "items.0").Raw, "v2", 5)
	s.expect("two pages of one in v2", 2)
	mustDo(s.t, http.StatusOK, http.MethodGet, s.v1, "")
	s.expect("list in v1, the storage version", 0)
}

// watches watches in v2 from a list's resourceVersion: a new object
// comes converted, one call for the batch its event is in.
func (s thingSteps) watches() {
	rv := gjson.Get(mustDo(s.t, http.StatusOK, http.MethodGet, s.v2, ""), "metadata.resourceVersion").Str
	s.expect("list in v2", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.v2+"?watch=1&resourceVersion="+rv, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	mustDo(s.t, http.StatusCreated, http.MethodPost, s.v1,
		fmt.Sprintf(`{"apiVersion":"conv.example.com/v1","kind":%q,"metadata":{"name":"d"},"spec":{"size":8}}`, s.kind))
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() {
		s.t.Fatalf("watch ended: %v", lines.Err())
	}
	if ev := lines.Text(); gjson.Get(ev, "type").Str != "ADDED" {
		s.t.Errorf("watch in v2: %s", ev)
	} else {
		s.sizeIn("watch in v2", gjson.Get(ev, "object").Raw, "v2", 8)
	}
	s.expect("watch in v2", 1)
}

// TestConversionWebhookDown: with its webhook down, what must be converted
// answers kube's error (a 500 with no reason, kubectl's "Error from
// server: conversion webhook for … failed: Post …"), and nothing else
// stops: the kind in its storage version, other kinds, watches of them.
func TestConversionWebhookDown(t *testing.T) {
	url, _ := startPostgres(t)
	w := startConversionWebhook(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	// A webhook that cannot be called is refused as kube refuses it.
	bad := mustDo(t, http.StatusUnprocessableEntity, http.MethodPost, base+crdsPath,
		thingCRD("things", "Thing", map[string]any{"url": "http://127.0.0.1/convert"}, "v1"))
	if cause := gjson.Get(bad, "details.causes.0"); cause.Get("field").Str != "spec.conversion.webhookClientConfig.url" {
		t.Errorf("a webhook over http: %s", bad)
	}
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, thingCRD("things", "Thing", w.byURL(), "v1"))
	v1 := base + "/apis/conv.example.com/v1/namespaces/default/things"
	v2 := base + "/apis/conv.example.com/v2/namespaces/default/things"
	waitFor(t, http.StatusOK, strings.TrimPrefix(v2, base), base)
	mustDo(t, http.StatusCreated, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":3}}`)
	w.srv.Close()

	host := strings.TrimPrefix(w.srv.URL, "https://")
	down := func(from string) string {
		return fmt.Sprintf(`conversion webhook for conv.example.com/%s, Kind=Thing failed: Post "https://%s/convert?timeout=30s": dial tcp %s: connect: connection refused`, from, host, host)
	}
	refused := []struct {
		what, method, url, body, want string
	}{
		{"get in v2", http.MethodGet, v2 + "/a", "", down("v1")},
		{"list in v2", http.MethodGet, v2, "", strings.Replace(down("v1"), "Kind=Thing", "Kind=ThingList", 1)},
		{"create in v2", http.MethodPost, v2, `{"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"b"},"spec":{"dimensions":{"size":4}}}`, down("v2")},
	}
	for _, r := range refused {
		code, out := send(t, r.method, r.url, r.body)
		if code != http.StatusInternalServerError || gjson.Get(out, "reason").Exists() || gjson.Get(out, "message").Str != r.want {
			t.Errorf("%s with the webhook down = %d %s\nwant 500 with no reason and %q", r.what, code, out, r.want)
		}
	}
	// kube's metrics count the failures, beside the client's.
	_, metrics := httpGet(t, base+"/metrics")
	for _, want := range []string{
		`apiserver_crd_conversion_webhook_duration_seconds_count{crd_name="things.conv.example.com",from_version="v1",succeeded="false",to_version="v2"} 2`,
		`apiserver_conversion_webhook_request_total{failure_type="conversion_webhook_call_failure",result="failure"} 3`,
		`dynapi_webhook_failures_total{name="conversion_webhook_for_things.conv.example.com",reason="connection",type="conversion"} 3`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// What needs no conversion is served.
	mustDo(t, http.StatusOK, http.MethodGet, v1+"/a", "")
	mustDo(t, http.StatusOK, http.MethodGet, v1, "")
	mustDo(t, http.StatusCreated, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Thing","metadata":{"name":"c"},"spec":{"size":5}}`)
	widgets := base + "/apis/shop.example.com/v1/namespaces/default/widgets"
	mustDo(t, http.StatusCreated, http.MethodPost, widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":1}}`)
	mustDo(t, http.StatusOK, http.MethodGet, widgets+"/w", "")
	mustDo(t, http.StatusOK, http.MethodGet, base+"/api/v1/namespaces/default", "")
}

// TestConversionWebhookKubectl: the real kubectl applies a definition that
// declares a webhook, with the webhook running, and gets an object in each
// version.
func TestConversionWebhookKubectl(t *testing.T) {
	url, _ := startPostgres(t)
	w := startConversionWebhook(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	crd := write("crd.json", thingCRD("things", "Thing", w.byURL(), "v1"))
	if out := k.run("apply", "-f", crd); !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/things.conv.example.com created") {
		t.Fatalf("kubectl apply: %s", out)
	}
	waitFor(t, http.StatusOK, "/apis/conv.example.com/v2/namespaces/default/things", "http://"+m.Addr())
	thing := write("thing.yaml", "apiVersion: conv.example.com/v1\nkind: Thing\nmetadata: {name: a}\nspec: {size: 3}\n")
	k.run("apply", "-f", thing)
	for _, tt := range []struct{ resource, want string }{
		{"things.v1.conv.example.com", "apiVersion: conv.example.com/v1\nkind: Thing\n"},
		{"things.v2.conv.example.com", "apiVersion: conv.example.com/v2\nkind: Thing\n"},
		{"things.v1.conv.example.com", "spec:\n  size: 3\n"},
		{"things.v2.conv.example.com", "spec:\n  dimensions:\n    size: 3\n"},
	} {
		if out := k.run("get", tt.resource, "a", "-o", "yaml"); !strings.Contains(out, tt.want) {
			t.Errorf("kubectl get %s -o yaml:\n%s\nwant %q", tt.resource, out, tt.want)
		}
	}
	if calls := w.calls(t, "v1"); calls == 0 {
		t.Error("kubectl's reads in v2 did not call the webhook")
	}
}

// TestConversionWebhookPublished: the real kubectl applies a published
// definition that declares a webhook, the external-snapshotter's
// VolumeGroupSnapshotContent (v1beta1, v1beta2, v1 stored; its service
// default/snapshot-conversion-webhook-service), with the webhook running,
// and gets an object written in v1 in each version.
func TestConversionWebhookPublished(t *testing.T) {
	url, _ := startPostgres(t)
	w := startServiceWebhook(t, "default", "snapshot-conversion-webhook-service", &webhooktest.Conversion{Convert: webhooktest.APIVersion})
	m := startMain(t, Config{DatabaseURL: url, WebhookServiceMap: w.serviceMap})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	published, err := os.ReadFile("testdata/external-snapshotter/groupsnapshot.storage.k8s.io_volumegroupsnapshotcontents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The published file has no caBundle: an installer's cert injector
	// fills it in before kubectl applies the file, as this does.
	const clientConfig = "      clientConfig:\n"
	if strings.Count(string(published), clientConfig) != 1 {
		t.Fatalf("the published definition has not one %q", clientConfig)
	}
	injected := strings.Replace(string(published), clientConfig, clientConfig+"        caBundle: "+w.caBundle+"\n", 1)
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const crd = "volumegroupsnapshotcontents.groupsnapshot.storage.k8s.io"
	if out := k.run("apply", "-f", write("crd.yaml", injected)); !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/"+crd+" created") {
		t.Fatalf("kubectl apply: %s", out)
	}
	k.run("wait", "--for=condition=Established", "--timeout=30s", "customresourcedefinition/"+crd)
	// A spec valid in all three versions, which differ only in status.
	const spec = `spec:
  deletionPolicy: Delete
  driver: hostpath.csi.k8s.io
  source:
    volumeHandles:
    - vol-1
    - vol-2
  volumeGroupSnapshotRef:
    name: group
    namespace: default
`
	k.run("apply", "-f", write("content.yaml", "apiVersion: groupsnapshot.storage.k8s.io/v1\nkind: VolumeGroupSnapshotContent\nmetadata:\n  name: content\n"+spec))
	w.calls(t, "v1")
	for _, v := range []string{"v1beta1", "v1beta2", "v1"} {
		out := k.run("get", "volumegroupsnapshotcontents."+v+".groupsnapshot.storage.k8s.io", "content", "-o", "yaml")
		for _, want := range []string{"apiVersion: groupsnapshot.storage.k8s.io/" + v + "\nkind: VolumeGroupSnapshotContent\n", "  name: content\n", spec} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl get in %s -o yaml:\n%s\nwant %q", v, out, want)
			}
		}
		calls := w.calls(t, "v1")
		if v != "v1" && calls == 0 {
			t.Errorf("kubectl get in %s did not call the webhook", v)
		}
		if v == "v1" && calls != 0 {
			t.Errorf("kubectl get in v1, the storage version, called the webhook %d times", calls)
		}
	}
}
