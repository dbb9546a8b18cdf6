package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// Deleting a definition as kube-apiserver deletes one: the delete marks
// it (the cleanup finalizer, Terminating), its objects are deleted in
// batches while other kinds are read as usual, its watches end, then it is
// gone, and a definition created again starts empty.
func TestDefinitionDeletionCleansUp(t *testing.T) {
	const objects = 10000
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"))
	waitFor(t, http.StatusOK, crontabsPath, base)
	createCronTabs(t, base, objects)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+crontabsPath+"?watch=1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
		}
		resp.Body.Close()
	}()

	marked := mustDo(t, http.StatusOK, http.MethodDelete, base+crdsPath+"/crontabs.stable.example.com", "")
	if gjson.Get(marked, "metadata.deletionTimestamp").Str == "" || !strings.Contains(gjson.Get(marked, "metadata.finalizers").Raw, "customresourcecleanup.apiextensions.k8s.io") ||
		gjson.Get(marked, `status.conditions.#(type=="Terminating").status`).Str != "True" {
		t.Fatalf("the delete did not mark the definition: %s", marked)
	}
	// Reads of other kinds go on while the objects are deleted.
	reads := 0
	took := wait.Eventually(t, 2*time.Minute, func() (bool, string) {
		mustDo(t, http.StatusOK, http.MethodGet, base+"/apis/shop.example.com/v1/namespaces/default/widgets", "")
		reads++
		code, body := httpGet(t, base+crdsPath+"/crontabs.stable.example.com")
		return code == http.StatusNotFound, "the definition is gone; last: " + body
	})
	t.Logf("%d objects cleaned up in %v, %d reads of widgets meanwhile", objects, took.Round(time.Millisecond), reads)
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch of the deleted kind did not end")
	}
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"))
	waitFor(t, http.StatusOK, crontabsPath, base)
	if n := gjson.Get(mustDo(t, http.StatusOK, http.MethodGet, base+crontabsPath, ""), "items.#").Int(); n != 0 {
		t.Fatalf("the definition created again serves %d objects", n)
	}
}

// A protected definition, by its annotation or by the server's
// --crd-deletion-protection, is not deleted while objects of its kind are
// stored: a 409 that says why; once they are gone, it is.
func TestProtectedDefinition(t *testing.T) {
	url, _ := startPostgres(t)
	annotated := strings.Replace(cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"), `"metadata":{`,
		`"metadata":{"annotations":{"dynapi.dev/deletion-protection":"true"},`, 1)
	tests := []struct {
		name, crd string
		cfg       Config
		why       string
	}{
		{"annotation", annotated, Config{DatabaseURL: url}, `it carries the annotation dynapi.dev/deletion-protection: "true"`},
		{"server", cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"), Config{DatabaseURL: url, CRDDeletionProtection: true},
			"the server protects every definition (--crd-deletion-protection)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := "http://" + startMain(t, tt.cfg).Addr()
			mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, tt.crd)
			waitFor(t, http.StatusOK, crontabsPath, base)
			createCronTabs(t, base, 1)
			refused := mustDo(t, http.StatusConflict, http.MethodDelete, base+crdsPath+"/crontabs.stable.example.com", "")
			if msg := gjson.Get(refused, "message").Str; !strings.Contains(msg, "crontabs.stable.example.com still has objects") || !strings.Contains(msg, tt.why) {
				t.Fatalf("refusal: %s", refused)
			}
			mustDo(t, http.StatusOK, http.MethodDelete, base+crontabsPath+"/c0", "")
			mustDo(t, http.StatusOK, http.MethodDelete, base+crdsPath+"/crontabs.stable.example.com", "")
			waitFor(t, http.StatusNotFound, crdsPath+"/crontabs.stable.example.com", base)
		})
	}
}

// createCronTabs creates n CronTabs, c0..c(n-1), over 16 connections.
func createCronTabs(t *testing.T, base string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				body := fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c%d"},"spec":{"cron":"* * * * *"}}`, i)
				resp, err := http.Post(base+crontabsPath, "application/json", strings.NewReader(body))
				if err != nil {
					errs <- err.Error()
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					errs <- fmt.Sprintf("create c%d: %d", i, resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// While a definition is Terminating (here kept so by a finalizer of its
// own once its objects are cleaned up), a create of its kind is refused
// with apiextensions-apiserver's 403, through the real kubectl; reads of
// the kind go on.
func TestCreateWhileDefinitionTerminating(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	held := strings.Replace(cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"), `"metadata":{`,
		`"metadata":{"finalizers":["example.com/hold"],`, 1)
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, held)
	waitFor(t, http.StatusOK, crontabsPath, base)
	k := kubectl{t: t, server: base, home: t.TempDir()}
	k.run("delete", "crd", "crontabs.stable.example.com", "--wait=false")
	// The delete is seen by the server's definitions controller through
	// its watch: a dry run tells when.
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		out, err := k.exec("create", "--dry-run=server", "-f", "testdata/kubectl/crontab.yaml")
		return err != nil, "a dry-run create still passes: " + out
	})
	out, err := k.exec("create", "-f", "testdata/kubectl/crontab.yaml")
	const want = `crontabs.stable.example.com "nightly" is forbidden: create not allowed while custom resource definition is terminating`
	if err == nil || !strings.Contains(out, "Error from server (Forbidden)") || !strings.Contains(out, want) {
		t.Fatalf("create while terminating: err %v, want Forbidden %q:\n%s", err, want, out)
	}
	if out := k.run("get", "crontabs"); !strings.Contains(out, "No resources found") {
		t.Fatalf("reads of the kind while terminating: %s", out)
	}
}
