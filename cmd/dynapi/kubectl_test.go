package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// needKubectl fails the test when the real kubectl is not on PATH: the
// tests that drive it are never skipped.
func needKubectl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is needed for this test (install it; .ci/run does): %v", err)
	}
}

// kubectl runs the real kubectl against a dynapi server, with no kubeconfig
// and a private discovery cache.
type kubectl struct {
	t      *testing.T
	server string
	home   string
	extra  []string // flags given to every command (credentials)
}

func (k kubectl) run(args ...string) string {
	k.t.Helper()
	out, err := k.exec(args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (k kubectl) exec(args ...string) (string, error) {
	args = append(append([]string{"--server=" + k.server, "--cache-dir=" + k.home + "/cache"}, k.extra...), args...)
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.home+"/none", "HOME="+k.home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestKubectl(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}

	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"api-versions"}, []string{"shop.example.com/v1", "shop.example.com/v1beta1", "labs.example.com/v1alpha1", "v1"}},
		{[]string{"api-resources"}, []string{"widgets", "wg", "shop.example.com/v1", "Widget", "namespaces", "ns", "warehouses"}},
		// What informers and controllers look for: resources they can list and watch.
		{[]string{"api-resources", "--verbs=list,watch", "-o", "name"}, []string{"widgets.shop.example.com", "namespaces"}},
		{[]string{"create", "namespace", "tour"}, []string{"namespace/tour created"}},
		{[]string{"create", "-f", "testdata/kubectl/widget.yaml"}, []string{"widget.shop.example.com/hello created"}},
		{[]string{"get", "widgets.shop.example.com", "-n", "tour"}, []string{"hello"}},
		{[]string{"get", "wg", "hello", "-n", "tour", "-o", "yaml"}, []string{"color: green", "size: 3", "resourceVersion:", "uid:"}},
		{[]string{"create", "-f", "testdata/kubectl/list.yaml", "-n", "tour"}, []string{"widget.shop.example.com/listed-1 created", "widget.shop.example.com/listed-2 created"}},
		{[]string{"label", "wg", "hello", "-n", "tour", "tier=front"}, []string{"widget.shop.example.com/hello labeled"}},
		{[]string{"get", "wg", "-n", "tour", "-l", "tier=front", "-o", "name"}, []string{"widget.shop.example.com/hello"}},
		{[]string{"patch", "wg", "hello", "-n", "tour", "--type=merge", "-p", `{"spec":{"size":9}}`}, []string{"widget.shop.example.com/hello patched"}},
		{[]string{"get", "wg", "hello", "-n", "tour", "-o", "jsonpath={.spec.size} {.metadata.labels.tier} {.metadata.generation}"}, []string{"9 front 2"}},
		{[]string{"get", "namespaces"}, []string{"default", "tour"}},
		// kubectl sends strategic merge patches for a Namespace, a built-in kind.
		{[]string{"apply", "-f", "testdata/kubectl/namespace.yaml"}, []string{"namespace/applied created"}},
		{[]string{"patch", "namespace", "applied", "-p", `{"metadata":{"labels":{"team":"b"}}}`}, []string{"namespace/applied patched"}},
		{[]string{"apply", "-f", "testdata/kubectl/namespace.yaml"}, []string{"namespace/applied configured"}},
		{[]string{"get", "namespace", "applied", "-o", "jsonpath={.metadata.labels.team}"}, []string{"a"}},
		{[]string{"explain", "wg.spec.color"}, []string{"shop.example.com", "ENUM:", "green"}},
		{[]string{"delete", "wg", "hello", "-n", "tour"}, []string{`widget.shop.example.com "hello" deleted`}},
		{[]string{"delete", "namespace", "tour"}, []string{`namespace "tour" deleted`}},
	}
	for _, s := range steps {
		out := k.run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
	// kubectl delete waits until the object is gone: a namespace goes once
	// it is emptied.
	for _, args := range [][]string{{"get", "wg", "hello", "-n", "tour"}, {"get", "namespace", "tour"}} {
		out, err := k.exec(args...)
		if err == nil || !strings.Contains(out, "NotFound") && !strings.Contains(out, "not found") {
			t.Fatalf("kubectl %s after delete: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// A definition applied with kubectl is served: kubectl finds the new kind
// (with a fresh discovery cache, as a new kind would be after kubectl's
// cache expires) and lists it with the definition's printer columns.
func TestKubectlDefinitionsThroughTheAPI(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	server := "http://" + m.Addr()
	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"apply", "-f", "testdata/kubectl/crontab-crd.yaml"}, []string{"customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created"}},
		{[]string{"wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=5s"}, []string{"condition met"}},
		{[]string{"get", "crds"}, []string{"NAME", "CREATED AT", "crontabs.stable.example.com"}},
		{[]string{"apply", "-f", "testdata/kubectl/crontab.yaml"}, []string{"crontab.stable.example.com/nightly created"}},
		{[]string{"get", "crontabs"}, []string{"SPEC", "REPLICAS", "nightly", "0 3 * * *"}},
		{[]string{"get", "ct", "nightly", "-o", "jsonpath={.spec.image}"}, []string{"backup:1.2"}},
		{[]string{"get", "crd", "crontabs.stable.example.com", "-o", "jsonpath={.status.acceptedNames.kind} {.status.storedVersions}"}, []string{`CronTab ["v1"]`}},
		{[]string{"delete", "-f", "testdata/kubectl/crontab-crd.yaml"}, []string{`customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted`}},
	}
	for _, s := range steps {
		// A new home each step: kubectl caches discovery, and the kinds
		// served change along the way.
		k := kubectl{t: t, server: server, home: t.TempDir()}
		out := k.run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
	// The kind goes once the controller has seen the delete.
	wait.Eventually(t, 2*time.Second, func() (bool, string) {
		k := kubectl{t: t, server: server, home: t.TempDir()}
		out, err := k.exec("get", "crontabs")
		return err != nil && strings.Contains(out, `doesn't have a resource type "crontabs"`), "kubectl get crontabs fails; last: " + out
	})
}

// Conversion rules applied with kubectl convert the kind they name: a
// Clock written in v1 reads in v2 with v1's cron as v2's schedule.
func TestKubectlConversionRules(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	server := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"apply", "-f", "testdata/kubectl/clock-crd.yaml"}, []string{"clocks.time.example.com created"}},
		{[]string{"wait", "--for=condition=Established", "crd/clocks.time.example.com", "--timeout=5s"}, []string{"condition met"}},
		{[]string{"apply", "-f", "testdata/kubectl/clock-rules.yaml"}, []string{"conversionrules.dynapi.dev/clock.time.example.com created"}},
		{[]string{"wait", "--for=condition=Active", "convrules/clock.time.example.com", "--timeout=5s"}, []string{"condition met"}},
		{[]string{"get", "convrules"}, []string{"KIND", "HUB", "ACTIVE", "clock.time.example.com", "Clock", "v2", "True"}},
		{[]string{"apply", "-f", "testdata/kubectl/clock-v1.yaml"}, []string{"clock.time.example.com/nightly created"}},
		{[]string{"get", "clocks.v2.time.example.com", "nightly", "-o", "jsonpath={.spec.schedule}"}, []string{"0 3 * * *"}},
		{[]string{"get", "clocks.v1.time.example.com", "nightly", "-o", "jsonpath={.spec.cron}"}, []string{"0 3 * * *"}},
	}
	for _, s := range steps {
		k := kubectl{t: t, server: server, home: t.TempDir()} // a new discovery cache each step
		out := k.run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
}
