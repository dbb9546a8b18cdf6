package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// gizmoDef defines Gizmo in test.example.com, its spec.size bounded by schemaExtra.
func gizmoDef(sizeExtra string) string {
	return `group: test.example.com
kind: Gizmo
plural: gizmos
scope: Namespaced
versions:
- name: v1
  storage: true
  schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer` + sizeExtra + `}, color: {type: string}}}}}
- name: v2
  schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer` + sizeExtra + `}, color: {type: string}}}}}
`
}

const gizmos = "/apis/test.example.com/v1/namespaces/default/gizmos"

func gizmo(name, spec string) string {
	return `{"apiVersion":"test.example.com/v1","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// definitionsDir makes a schemas folder with gizmo.yaml (namespaces are
// built in), and an empty conversions folder.
func definitionsDir(t *testing.T, gizmo string) (schemas, conversions string) {
	t.Helper()
	dir := t.TempDir()
	schemas, conversions = filepath.Join(dir, "schemas"), filepath.Join(dir, "conversions")
	writeFile(t, filepath.Join(schemas, "test/gizmo.yaml"), gizmo)
	if err := os.MkdirAll(conversions, 0o755); err != nil {
		t.Fatal(err)
	}
	return schemas, conversions
}

// writeFile writes a file as editors save one: a hidden temporary file
// renamed over the old one, so that no reload reads it half written.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// send makes one JSON request and returns the status code and body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	return sendAs(t, method, url, "application/json", body)
}

// sendAs makes one request with a body of contentType (a patch's) and
// returns the status code and body.
func sendAs(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// Removing a definition file unserves its kind (404, gone from discovery,
// its watches end, its published CustomResourceDefinition deleted) and
// keeps its objects; restoring it serves them again.
func TestDefinitionRemovedAndRestored(t *testing.T) {
	url, _ := startPostgres(t)
	schemas, conversions := definitionsDir(t, gizmoDef(""))
	base := "http://" + startMain(t, Config{DatabaseURL: url, Schemas: schemas, Conversions: conversions}).Addr()
	var uids []string
	for _, name := range []string{"a", "b"} {
		code, body := send(t, http.MethodPost, base+gizmos, gizmo(name, `{"size":1}`))
		if code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, code, body)
		}
		uids = append(uids, gjson.Get(body, "metadata.uid").Str)
	}
	watchEnded := watchUntilEnd(t, base+gizmos+"?watch=true&resourceVersion=0")
	crd := base + crdsPath + "/gizmos.test.example.com"
	if _, body := send(t, http.MethodGet, crd, ""); gjson.Get(body, `metadata.annotations.dynapi\.dev/definition-file`).Str != "test/gizmo.yaml" {
		t.Fatalf("the file's definition is not published: %s", body)
	}

	saved := filepath.Join(t.TempDir(), "gizmo.yaml")
	if err := os.Rename(filepath.Join(schemas, "test/gizmo.yaml"), saved); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		code, body := send(t, http.MethodGet, base+gizmos, "")
		return code == http.StatusNotFound, "gizmos unserved; last: " + body
	})
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		code, body := send(t, http.MethodGet, crd, "")
		return code == http.StatusNotFound, "the file's definition deleted; last: " + body
	})
	if _, groups := httpGet(t, base+"/apis"); strings.Contains(groups, "test.example.com") {
		t.Errorf("discovery still has the group: %s", groups)
	}
	select {
	case <-watchEnded:
	case <-time.After(2 * time.Second):
		t.Error("the watch on gizmos did not end")
	}

	if err := os.Rename(saved, filepath.Join(schemas, "test/gizmo.yaml")); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		code, body := send(t, http.MethodGet, base+gizmos, "")
		return code == http.StatusOK, "gizmos served again; last: " + body
	})
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		code, body := send(t, http.MethodGet, crd, "")
		return code == http.StatusOK, "the file's definition published again; last: " + body
	})
	_, list := send(t, http.MethodGet, base+gizmos, "")
	if got := gjson.Get(list, "items.#.metadata.uid").String(); got != `["`+strings.Join(uids, `","`)+`"]` {
		t.Fatalf("objects after the restore: %s, want uids %v", got, uids)
	}
}

// watchUntilEnd starts a watch and returns a channel closed when its stream ends.
func watchUntilEnd(t *testing.T, url string) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %v %v", resp, err)
	}
	sc := bufio.NewScanner(resp.Body)
	for range 2 { // the ADDED events of a and b: the watch is under way
		sc.Scan()
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		for sc.Scan() {
		}
	}()
	return ended
}

// A stricter schema: under refuse, the previous definition serves on and
// the status endpoint says why; under report, it takes effect, and updates
// follow ratcheting: an unchanged invalid field is tolerated, a changed
// one is not, and a create is validated in full.
func TestSchemaChangePreviewAndRatcheting(t *testing.T) {
	url, _ := startPostgres(t)
	schemas, conversions := definitionsDir(t, gizmoDef(""))
	cfg := Config{DatabaseURL: url, Schemas: schemas, Conversions: conversions, SchemaChangePolicy: "refuse"}
	refusing := "http://" + startMain(t, cfg).Addr()
	for _, g := range []string{gizmo("small", `{"size":1}`), gizmo("big", `{"size":20}`)} {
		if code, body := send(t, http.MethodPost, refusing+gizmos, g); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
	}
	writeFile(t, filepath.Join(schemas, "test/gizmo.yaml"), gizmoDef(", maximum: 10"))
	var status string
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		_, status = httpGet(t, refusing+"/debug/definitions")
		return gjson.Get(status, `problems.#(file=="test/gizmo.yaml")`).Exists(), "the change refused; last: " + status
	})
	check := gjson.Get(status, `schemaChecks.#(resource=="gizmos")`)
	if check.Get("objects").Int() != 2 || check.Get("invalid").Int() != 1 || check.Get("examples.0.name").Str != "big" ||
		!check.Get("refused").Bool() {
		t.Errorf("schema check: %s", check.Raw)
	}
	if !gjson.Get(status, `resources.#(resource=="gizmos").stale`).Bool() {
		t.Errorf("gizmos not marked stale: %s", status)
	}
	if code, body := send(t, http.MethodPost, refusing+gizmos, gizmo("bigger", `{"size":30}`)); code != http.StatusCreated {
		t.Fatalf("the previous schema does not serve on: %d %s", code, body)
	}
	if _, metrics := httpGet(t, refusing+"/metrics"); !strings.Contains(metrics, `dynapi_definition_problems{file="`+filepath.Join(schemas, "test/gizmo.yaml")+`"} 1`) {
		t.Errorf("metrics lack the problem:\n%s", metrics)
	}

	cfg.SchemaChangePolicy = "report"
	reporting := "http://" + startMain(t, cfg).Addr()
	_, big := send(t, http.MethodGet, reporting+gizmos+"/big", "")
	rv := gjson.Get(big, "metadata.resourceVersion").Str
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"create, invalid", http.MethodPost, gizmos, gizmo("huge", `{"size":20}`), http.StatusUnprocessableEntity},
		{"update, invalid field changed", http.MethodPut, gizmos + "/big", withRV(gizmo("big", `{"size":21}`), rv), http.StatusUnprocessableEntity},
		{"update, invalid field unchanged", http.MethodPut, gizmos + "/big", withRV(gizmo("big", `{"size":20,"color":"red"}`), rv), http.StatusOK},
	}
	for _, tt := range tests {
		if code, body := send(t, tt.method, reporting+tt.path, tt.body); code != tt.want {
			t.Errorf("%s: %d, want %d: %s", tt.name, code, tt.want, body)
		}
	}
}

func withRV(obj, rv string) string {
	return strings.Replace(obj, `"metadata":{`, `"metadata":{"resourceVersion":"`+rv+`",`, 1)
}

// --runtime-config switches a version off: 404, and gone from discovery
// and OpenAPI; the other version serves.
func TestRuntimeConfig(t *testing.T) {
	url, _ := startPostgres(t)
	schemas, conversions := definitionsDir(t, gizmoDef(""))
	base := "http://" + startMain(t, Config{DatabaseURL: url, Schemas: schemas, Conversions: conversions,
		RuntimeConfig: "test.example.com/v1=false"}).Addr()
	if code, _ := send(t, http.MethodGet, base+gizmos, ""); code != http.StatusNotFound {
		t.Errorf("v1 answers %d", code)
	}
	if code, _ := send(t, http.MethodGet, base+"/apis/test.example.com/v2/namespaces/default/gizmos", ""); code != http.StatusOK {
		t.Errorf("v2 answers %d", code)
	}
	if _, group := httpGet(t, base+"/apis/test.example.com"); gjson.Get(group, "versions.#.version").String() != `["v2"]` {
		t.Errorf("discovery: %s", group)
	}
	if _, openapi := httpGet(t, base+"/openapi/v3"); strings.Contains(openapi, "test.example.com/v1") {
		t.Errorf("OpenAPI lists v1: %s", openapi)
	}
}

func TestReloadFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--runtime-config", "shop.example.com/v1=false,labs.example.com=false", "--schema-change-policy", "refuse"}, ""},
		{[]string{"--runtime-config", "a/b/c=false"}, "--runtime-config"},
		{[]string{"--schema-change-policy", "ignore"}, "--schema-change-policy"},
	}
	for _, tt := range tests {
		_, err := parseConfig("serve", tt.args, func(string) string { return "" }, io.Discard)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.wantErr)
		}
	}
	env := map[string]string{"DYNAPI_RUNTIME_CONFIG": "x.example.com=false", "DYNAPI_SCHEMA_CHANGE_POLICY": "refuse"}
	cfg, err := parseConfig("serve", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.RuntimeConfig != "x.example.com=false" || cfg.SchemaChangePolicy != "refuse" {
		t.Errorf("from the environment: %+v, %v", cfg, err)
	}
}
