package crd_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

const (
	crds     = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs"
)

// A definition created through one process is served by every process on
// the database, gets its status, stops being served when deleted, once
// its objects are deleted, and starts empty when created again.
func TestDefinitionsThroughTheAPI(t *testing.T) {
	db := pgtest.Open(t)
	a, b := startProcess(t, db), startProcess(t, db)
	cronTab := string(crdJSON("stable.example.com", "crontabs", "CronTab", "ct"))

	a.must(http.StatusCreated, http.MethodPost, crds, cronTab)
	answers(t, http.StatusOK, crontabs, a, b)
	b.must(http.StatusCreated, http.MethodPost, crontabs,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
	if list := a.must(http.StatusOK, http.MethodGet, crontabs, ""); gjson.GetBytes(list, "items.#").Int() != 1 {
		t.Fatalf("list through the other process: %s", list)
	}
	conditions(t, a, "crontabs.stable.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted")
	if st := a.must(http.StatusOK, http.MethodGet, crds+"/crontabs.stable.example.com", ""); gjson.GetBytes(st, "status.storedVersions.0").Str != "v1" ||
		gjson.GetBytes(st, "status.acceptedNames.shortNames.0").Str != "ct" {
		t.Fatalf("status: %s", st)
	}

	a.must(http.StatusOK, http.MethodDelete, crds+"/crontabs.stable.example.com", "")
	answers(t, http.StatusNotFound, crontabs, a, b)
	key := engine.ObjectKey{Resource: engine.GroupResource{Group: "stable.example.com", Resource: "crontabs"}, Namespace: "default", Name: "nightly"}
	if _, err := a.store.Get(context.Background(), key); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Fatalf("an object of a deleted definition is left: %v", err)
	}

	b.must(http.StatusCreated, http.MethodPost, crds, cronTab)
	answers(t, http.StatusOK, crontabs, a, b)
	a.must(http.StatusNotFound, http.MethodGet, crontabs+"/nightly", "")
}

// A definition whose names another resource holds is stored, not served,
// and says why in its status, on every process; one for the very kind a
// definition file serves, which differs from the file, is refused.
func TestConflictingDefinition(t *testing.T) {
	db := pgtest.Open(t)
	a, b := startProcess(t, db), startProcess(t, db)
	// shop.example.com's widgets come from a definition file; v7 is a
	// version no file declares, so that serving it would show.
	differs := strings.Replace(string(crdJSON("shop.example.com", "widgets", "Thing")), `"name":"v1"`, `"name":"v7"`, 1)
	refused := a.must(http.StatusUnprocessableEntity, http.MethodPost, crds, differs)
	if msg := gjson.GetBytes(refused, "message").Str; !strings.Contains(msg, "the definition file shop.example.com/widget.yaml serves widgets.shop.example.com") {
		t.Fatalf("the refusal does not name the file: %s", msg)
	}
	// Another plural, the file's kind (and so its singular).
	a.must(http.StatusCreated, http.MethodPost, crds, string(crdJSON("shop.example.com", "things", "Widget")))
	for _, p := range []*process{a, b} {
		conditions(t, p, "things.shop.example.com", "NamesAccepted=False:SingularConflict", "Established=False:NotAccepted")
	}
	st := b.must(http.StatusOK, http.MethodGet, crds+"/things.shop.example.com", "")
	if msg := gjson.GetBytes(st, `status.conditions.#(type=="NamesAccepted").message`).Str; !strings.Contains(msg, "shop.example.com/widget.yaml") {
		t.Fatalf("the conflict does not name the file: %s", msg)
	}
	for _, p := range []*process{a, b} {
		p.must(http.StatusNotFound, http.MethodGet, "/apis/shop.example.com/v7/namespaces/default/widgets", "")
		p.must(http.StatusNotFound, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/things", "")
		p.must(http.StatusOK, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets", "")
	}
}

// Between two definitions that claim one name, the one created first is
// served, by every process: by those that saw them come one after the
// other, and by one that starts later and finds both (where name order
// alone would pick the other).
func TestFirstDefinitionWins(t *testing.T) {
	db := pgtest.Open(t)
	a := startProcess(t, db)
	a.must(http.StatusCreated, http.MethodPost, crds, string(crdJSON("toys.example.com", "zebras", "Zebra", "z")))
	time.Sleep(time.Second) // creationTimestamp counts seconds
	a.must(http.StatusCreated, http.MethodPost, crds, string(crdJSON("toys.example.com", "apes", "Ape", "z")))
	conditions(t, a, "apes.toys.example.com", "NamesAccepted=False:ShortNamesConflict", "Established=False:NotAccepted")
	b := startProcess(t, db)
	for _, p := range []*process{a, b} {
		p.must(http.StatusOK, http.MethodGet, "/apis/toys.example.com/v1/namespaces/default/zebras", "")
		p.must(http.StatusNotFound, http.MethodGet, "/apis/toys.example.com/v1/namespaces/default/apes", "")
	}
	conditions(t, b, "zebras.toys.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted")

	a.must(http.StatusOK, http.MethodDelete, crds+"/zebras.toys.example.com", "")
	answers(t, http.StatusOK, "/apis/toys.example.com/v1/namespaces/default/apes", a, b)
	conditions(t, b, "apes.toys.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted")
}

// Processes whose definition files differ disagree, and each writes what
// it sees once, never back what the other wrote. b, without the file of
// shop.example.com's widgets, does not serve them, keeps the definition a
// published for them as a wrote it (spec, status) and refuses to change
// its spec; a definition created through b under another plural, which
// claims the file's kind, gets a status from each process (a names the
// file, b the published definition) that neither writes back.
func TestProcessesThatDisagree(t *testing.T) {
	db := pgtest.Open(t)
	a := startProcessWith(t, db, shipped)
	b := startProcessWith(t, db, without(t, shipped, "shop.example.com/widget.yaml"))
	const widgets = "widgets.shop.example.com"
	conditions(t, a, widgets, "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted", "DefinitionFile=True:ServedByDefinitionFile")
	b.must(http.StatusNotFound, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets", "")
	out := b.must(http.StatusUnprocessableEntity, http.MethodPatch, crds+"/"+widgets, `{"spec":{"names":{"shortNames":["wx"]}}}`)
	if msg := gjson.GetBytes(out, "message").Str; !strings.Contains(msg, "published from the definition file shop.example.com/widget.yaml") {
		t.Fatalf("a change of the published spec through b: %s", msg)
	}
	b.must(http.StatusCreated, http.MethodPost, crds, string(crdJSON("shop.example.com", "things", "Widget")))
	settled(t, a, widgets, "things.shop.example.com")
	conditions(t, a, widgets, "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted", "DefinitionFile=True:ServedByDefinitionFile")
}

// settled waits until the definitions named stay as they are for half a
// second, which a tug of war between processes never leaves them.
func settled(t *testing.T, p *process, names ...string) {
	t.Helper()
	rv := func() string {
		var rvs []string
		for _, name := range names {
			rvs = append(rvs, gjson.GetBytes(p.must(http.StatusOK, http.MethodGet, crds+"/"+name, ""), "metadata.resourceVersion").Str)
		}
		return strings.Join(rvs, ",")
	}
	deadline := time.Now().Add(3 * time.Second)
	for before := rv(); ; {
		time.Sleep(500 * time.Millisecond)
		after := rv()
		if after == before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the processes keep rewriting %v: resourceVersions %s, then %s", names, before, after)
		}
		before = after
	}
}

// A definition the registry would refuse on its own is refused at once, on
// create and on update; its status is the server's to write.
func TestInvalidDefinition(t *testing.T) {
	p := startProcess(t, pgtest.Open(t))
	good := string(crdJSON("stable.example.com", "crontabs", "CronTab"))
	bad := strings.Replace(good, `"name":"crontabs.stable.example.com"`, `"name":"crontab.stable.example.com"`, 1)
	out := p.must(http.StatusUnprocessableEntity, http.MethodPost, crds, bad)
	if gjson.GetBytes(out, "details.causes.0.field").Str != "metadata.name" {
		t.Fatalf("422 without the name's cause: %s", out)
	}
	p.must(http.StatusNotFound, http.MethodGet, crds+"/crontab.stable.example.com", "")

	p.must(http.StatusCreated, http.MethodPost, crds, good)
	out = p.must(http.StatusUnprocessableEntity, http.MethodPatch, crds+"/crontabs.stable.example.com",
		`{"spec":{"names":{"plural":"CronTabs"}}}`)
	if !strings.Contains(gjson.GetBytes(out, "message").Str, `spec.names.plural: Invalid value: "CronTabs"`) {
		t.Fatalf("update to a bad plural: %s", out)
	}
}

// conditions waits until the status of definition name holds want, each
// "Type=Status:Reason".
func conditions(t *testing.T, p *process, name string, want ...string) {
	t.Helper()
	what := name + " has " + strings.Join(want, ", ")
	took := wait.Eventually(t, spread, func() (bool, string) {
		obj := p.must(http.StatusOK, http.MethodGet, crds+"/"+name, "")
		var got []string
		for _, c := range gjson.GetBytes(obj, "status.conditions").Array() {
			got = append(got, fmt.Sprintf("%s=%s:%s", c.Get("type").Str, c.Get("status").Str, c.Get("reason").Str))
		}
		return strings.Join(got, " ") == strings.Join(want, " "), what + "; last: " + gjson.GetBytes(obj, "status").Raw
	})
	t.Logf("%s after %v", what, took.Round(time.Millisecond))
}

// A definition created through the API is compiled once: by the check of
// its write; the controller's load finds that compile, and its two
// versions, which declare one schema, share it.
func TestDefinitionCompiledOnce(t *testing.T) {
	a := startProcess(t, pgtest.Open(t))
	// The description makes the schema one this test binary never
	// compiled before, not even in an earlier run of -count: compiled
	// schemas are cached by content, process-wide.
	description := fmt.Sprintf("%s %d", t.Name(), time.Now().UnixNano())
	version := func(name string, storage bool) string {
		return fmt.Sprintf(`{"name":%q,"served":true,"storage":%v,"schema":{"openAPIV3Schema":{"type":"object",
"properties":{"spec":{"type":"object","description":%q,"properties":{"cron":{"type":"string"}}}}}}}`, name, storage, description)
	}
	def := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"onces.compile.example.com"},"spec":{"group":"compile.example.com","scope":"Namespaced",
"names":{"plural":"onces","kind":"Once"},"versions":[` + version("v1", true) + "," + version("v2", false) + `]}}`
	before := schema.Compiles()
	a.must(http.StatusCreated, http.MethodPost, crds, def)
	answers(t, http.StatusOK, "/apis/compile.example.com/v2/onces", a)
	conditions(t, a, "onces.compile.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted")
	if n := schema.Compiles() - before; n != 1 {
		t.Errorf("%d schemas compiled for one definition of one schema, want 1", n)
	}
}
