package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

const svmsPath = "/apis/storagemigration.k8s.io/v1/storageversionmigrations"

// twoVersionCronTabCRD is CronTab through the API with versions v1 and v2
// of one shape, storage the storage version; rv, when set, its
// resourceVersion (for a PUT).
func twoVersionCronTabCRD(storage, rv string) string {
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"crontabs.stable.example.com","resourceVersion":%q},"spec":{"group":"stable.example.com","scope":"Namespaced",
"names":{"plural":"crontabs","kind":"CronTab"},"versions":[
{"name":"v1","served":true,"storage":%t,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
{"name":"v2","served":true,"storage":%t,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
		rv, storage == "v1", storage == "v2")
}

// svmFor is a StorageVersionMigration of group/resource.
func svmFor(name, group, res string) string {
	return fmt.Sprintf(`{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration",
"metadata":{"name":%q},"spec":{"resource":{"group":%q,"resource":%q}}}`, name, group, res)
}

// storeOldVersions stores three Pipes in v1 (the definition files then
// store v1; the shipped ones store v2, with rules between them), and
// three CronTabs of a definition created through the API in v1, whose
// storage version is then moved to v2, and returns the database.
func storeOldVersions(t *testing.T) string {
	t.Helper()
	url, _ := startPostgres(t)
	m := runMain(t, Config{DatabaseURL: url, Schemas: schemasWithPipeStoredInV1(t)})
	base := "http://" + m.Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+crdsPath, twoVersionCronTabCRD("v1", ""))
	waitFor(t, http.StatusOK, crontabsPath, base)
	for i := range 3 {
		mustDo(t, http.StatusCreated, http.MethodPost, base+"/apis/plumbing.example.com/v1/namespaces/default/pipes",
			fmt.Sprintf(`{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"p%d"},
			"spec":{"owner":"team-water","diameter":120,"material":"steel","outlet":"north","tags":"potable","pressure":6}}`, i))
		mustDo(t, http.StatusCreated, http.MethodPost, base+crontabsPath,
			fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c%d"},"spec":{"cron":"0 3 * * *"}}`, i))
	}
	crd := mustDo(t, http.StatusOK, http.MethodGet, base+crdsPath+"/crontabs.stable.example.com", "")
	mustDo(t, http.StatusOK, http.MethodPut, base+crdsPath+"/crontabs.stable.example.com",
		twoVersionCronTabCRD("v2", gjson.Get(crd, "metadata.resourceVersion").Str))
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		crd = mustDo(t, http.StatusOK, http.MethodGet, base+crdsPath+"/crontabs.stable.example.com", "")
		return gjson.Get(crd, "status.storedVersions").Raw == `["v1","v2"]`, "storedVersions v1 and v2: " + gjson.Get(crd, "status").Raw
	})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	return url
}

// A StorageVersionMigration created through the API, for a kind
// converted by rules from files and for one defined through the API, is
// run as kube-controller-manager runs it: its Running message counts the
// objects left page by page, it ends Succeeded with Running False, every
// row is then stored in the storage version (read in the database), the
// objects still read whole in every version, and the definition's
// status.storedVersions is trimmed to the storage version.
func TestStorageVersionMigrationThroughTheAPI(t *testing.T) {
	url := storeOldVersions(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url, MigrateBatch: 2}).Addr()
	created := mustDo(t, http.StatusCreated, http.MethodPost, base+svmsPath, svmFor("pipes-v2", "plumbing.example.com", "pipes"))
	mustDo(t, http.StatusCreated, http.MethodPost, base+svmsPath, svmFor("crontabs-v2", "stable.example.com", "crontabs"))

	for _, name := range []string{"pipes-v2", "crontabs-v2"} {
		waitForMigration(t, base+svmsPath+"/"+name,
			"Running=False:MigrationCompleted:Migration completed Succeeded=True:StorageVersionMigrationSucceeded:Migration completed")
	}
	messages := runningMessages(t, base+svmsPath+"?watch=true&fieldSelector=metadata.name=pipes-v2&resourceVersion="+
		gjson.Get(created, "metadata.resourceVersion").Str)
	for _, want := range []string{"The migration is running", "The migration is running, 1/3 objects not yet migrated",
		"The migration is running, 3 objects verified migrated"} {
		if !slices.Contains(messages, want) {
			t.Errorf("the migration's Running messages %q lack %q", messages, want)
		}
	}

	wantStoredIn(t, url, map[string]string{
		"pipes.plumbing.example.com":  "v2 plumbing.example.com/v2",
		"crontabs.stable.example.com": "v2 stable.example.com/v2",
	})
	pipe := mustDo(t, http.StatusOK, http.MethodGet, base+"/apis/plumbing.example.com/v1/namespaces/default/pipes/p0", "")
	if got := gjson.Get(pipe, "spec.owner").Str + " " + gjson.Get(pipe, "spec.outlet").Str; got != "team-water north" {
		t.Errorf("pipe p0 read in v1 after the migration: %s", pipe)
	}
	crd := mustDo(t, http.StatusOK, http.MethodGet, base+crdsPath+"/crontabs.stable.example.com", "")
	if got := gjson.Get(crd, "status.storedVersions").Raw; got != `["v2"]` {
		t.Errorf("storedVersions after the migration = %s, want [\"v2\"]", got)
	}
	if got := gjson.Get(crd, `status.conditions.#(type=="StorageMigrating")`); got.Get("status").Str != "False" ||
		got.Get("message").Str != "The migration has succeeded and the stored versions have been updated" {
		t.Errorf("StorageMigrating condition after the migration: %s", got.Raw)
	}
}

// waitForMigration waits up to 10 s for the migration at url to have
// conditions want, "Type=Status:Reason:Message" separated by spaces,
// sorted by type.
func waitForMigration(t *testing.T, url, want string) string {
	t.Helper()
	var obj string
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		_, obj = httpGet(t, url)
		return conditionsOf(obj) == want, url + " has " + want + "; last: " + gjson.Get(obj, "status").Raw
	})
	return obj
}

// conditionsOf renders an object's conditions as waitForMigration reads them.
func conditionsOf(obj string) string {
	var got []string
	for _, c := range gjson.Get(obj, "status.conditions").Array() {
		got = append(got, c.Get("type").Str+"="+c.Get("status").Str+":"+c.Get("reason").Str+":"+c.Get("message").Str)
	}
	slices.Sort(got)
	return strings.Join(got, " ")
}

// runningMessages watches url (a watch from the migration's creation)
// until the migration succeeds, and returns the messages its Running
// condition had on the way.
func runningMessages(t *testing.T, url string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var messages []string
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		obj := gjson.GetBytes(lines.Bytes(), "object")
		if msg := obj.Get(`status.conditions.#(type=="Running").message`).Str; msg != "" && !slices.Contains(messages, msg) {
			messages = append(messages, msg)
		}
		if obj.Get(`status.conditions.#(type=="Succeeded").status`).Str == "True" {
			return messages
		}
	}
	t.Fatalf("watch %s ended before the migration succeeded (%v); messages: %q", url, lines.Err(), messages)
	return nil
}

// wantStoredIn checks that every row of each resource is stored in the
// version want names, with the body's apiVersion: "v2 group/v2".
func wantStoredIn(t *testing.T, url string, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for res, w := range want {
		rows, err := conn.Query(ctx, `SELECT name, stored_version || ' ' || (body->>'apiVersion') FROM objects WHERE resource = $1`, res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Name, Stored string }])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Errorf("no rows of %s", res)
		}
		for _, row := range got {
			if row.Stored != w {
				t.Errorf("%s %s is stored as %q, want %q", res, row.Name, row.Stored, w)
			}
		}
	}
}

// The same with the real kubectl: `kubectl create -f svm.yaml` starts a
// migration, `kubectl wait` sees it succeed, `kubectl get -o yaml` shows
// its conditions, and the definition's storedVersions are trimmed.
func TestKubectlStorageVersionMigration(t *testing.T) {
	needKubectl(t)
	url := storeOldVersions(t)
	k := kubectl{t: t, server: "http://" + startMain(t, Config{DatabaseURL: url}).Addr(), home: t.TempDir()}
	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"create", "-f", "testdata/kubectl/svm.yaml"}, []string{"storageversionmigration.storagemigration.k8s.io/crontabs-v2 created"}},
		{[]string{"wait", "--for=condition=Succeeded", "storageversionmigration/crontabs-v2", "--timeout=10s"}, []string{"condition met"}},
		{[]string{"get", "storageversionmigration", "crontabs-v2", "-o", "yaml"}, []string{
			"  - lastTransitionTime:", "    message: Migration completed\n    observedGeneration: 1\n    reason: MigrationCompleted\n    status: \"False\"\n    type: Running",
			"    message: Migration completed\n    reason: StorageVersionMigrationSucceeded\n    status: \"True\"\n    type: Succeeded",
			"  resourceVersion: \""}},
		{[]string{"get", "storageversionmigrations"}, []string{"NAME", "RESOURCE", "crontabs-v2", "crontabs"}},
		{[]string{"get", "crd", "crontabs.stable.example.com", "-o", "jsonpath={.status.storedVersions}"}, []string{`["v2"]`}},
	}
	for _, s := range steps {
		out := k.run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
	wantStoredIn(t, url, map[string]string{"crontabs.stable.example.com": "v2 stable.example.com/v2"})
}
