package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// The kubectl commands people use every day, against a Widget of a
// CustomResourceDefinition-style definition with status, scale and
// printer columns.
func TestKubectlScript(t *testing.T) {
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	const wg = "widgets.labs.example.com"
	edited := filepath.Join(k.home, "editor.sh")
	if err := os.WriteFile(edited, []byte("#!/bin/sh\nsed -i 's/color: green/color: blue/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	k.run("create", "namespace", "script")
	steps := []struct {
		args []string
		want []string // substrings of the output
	}{
		{[]string{"api-versions"}, []string{"labs.example.com/v1alpha1", "coordination.k8s.io/v1"}},
		{[]string{"api-resources", "--api-group=labs.example.com", "-o", "wide"}, []string{"widgets", "lwg", "Widget", "create,delete"}},
		{[]string{"explain", wg + ".spec.replicas"}, []string{"replicas", "integer"}},
		{[]string{"apply", "-f", "testdata/kubectl/script-widget.yaml"}, []string{"widget.labs.example.com/script created"}},
		{[]string{"apply", "-f", "testdata/kubectl/script-widget.yaml"}, []string{"widget.labs.example.com/script unchanged"}},
		{[]string{"get", wg, "-n", "script", "-o", "wide"}, []string{"NAME", "COLOR", "PORT", "READY", "script", "green", "8080"}},
		{[]string{"get", wg, "script", "-n", "script", "-o", "yaml"}, []string{"color: green", "uid:"}},
		{[]string{"get", wg, "script", "-n", "script", "-o", "json"}, []string{`"replicas": 1`}},
		{[]string{"get", wg, "-n", "script", "-o", "name"}, []string{"widget.labs.example.com/script"}},
		{[]string{"get", wg, "-n", "script", "-l", "tier=front", "-o", "jsonpath={.items[0].spec.port}"}, []string{"8080"}},
		{[]string{"get", wg, "-n", "script", "-o", "custom-columns=N:.metadata.name,P:.spec.port"}, []string{"N", "P", "script", "8080"}},
		{[]string{"get", wg, "script", "-n", "script", "-o", "go-template={{.spec.color}}"}, []string{"green"}},
		{[]string{"edit", wg, "script", "-n", "script"}, []string{"widget.labs.example.com/script edited"}},
		{[]string{"patch", wg, "script", "-n", "script", "--type=merge", "-p", `{"spec":{"port":9090}}`}, []string{"patched"}},
		{[]string{"patch", wg, "script", "-n", "script", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":2}]`}, []string{"patched"}},
		{[]string{"label", wg, "script", "-n", "script", "tier=back", "--overwrite"}, []string{"labeled"}},
		{[]string{"annotate", wg, "script", "-n", "script", "note=hi"}, []string{"annotated"}},
		{[]string{"scale", wg + "/script", "-n", "script", "--replicas=3"}, []string{"scaled"}},
		{[]string{"patch", wg, "script", "-n", "script", "--subresource=status", "--type=merge", "-p",
			`{"status":{"readyReplicas":3,"conditions":[{"type":"Ready","status":"True"}]}}`}, []string{"patched"}},
		{[]string{"wait", wg + "/script", "-n", "script", "--for=condition=Ready", "--timeout=10s"}, []string{"condition met"}},
		{[]string{"get", wg, "script", "-n", "script", "-o", "jsonpath={.spec.color} {.spec.port} {.spec.replicas} {.metadata.labels.tier} {.metadata.annotations.note} {.status.readyReplicas}"},
			[]string{"blue 9090 3 back hi 3"}},
		{[]string{"replace", "-f", "testdata/kubectl/script-widget.yaml"}, []string{"replaced"}},
		{[]string{"events", "-n", "script"}, []string{}},
	}
	for _, s := range steps {
		out := k.runEnv([]string{"KUBE_EDITOR=" + edited}, s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
	// diff exits 1 when the file differs from the server.
	if out, err := k.exec("diff", "-f", "testdata/kubectl/labs-widget.yaml"); err == nil || !strings.Contains(out, "+") {
		t.Fatalf("diff of a new object: %v\n%s", err, out)
	}
	k.watchSees(wg, "script")
	k.cascades(wg)
	k.run("delete", wg, "-n", "script", "-l", "tier=front")
	k.run("wait", wg+"/script", "-n", "script", "--for=delete", "--timeout=10s")
}

// runEnv is run with more environment.
func (k kubectl) runEnv(env []string, args ...string) string {
	k.t.Helper()
	args = append([]string{"--server=" + k.server, "--cache-dir=" + k.home + "/cache"}, args...)
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+k.home+"/none", "HOME="+k.home), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// watchSees runs kubectl get -w and checks that it prints a change.
func (k kubectl) watchSees(wg, name string) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", "--server="+k.server, "--cache-dir="+k.home+"/cache", "get", wg, "-n", "script", "-w", "--output-watch-events")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.home+"/none", "HOME="+k.home)
	var out syncBuffer // written by exec's copying goroutine while the test reads it
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	time.Sleep(time.Second)
	k.run("annotate", wg, name, "-n", "script", "watched=yes")
	wait.Until(8*time.Second, func() bool { return strings.Contains(out.String(), "MODIFIED") })
	cancel()
	_ = cmd.Wait()
	if !strings.Contains(out.String(), "MODIFIED") || !strings.Contains(out.String(), name) {
		k.t.Fatalf("kubectl get -w printed:\n%s", out.String())
	}
}

// cascades deletes owners with --cascade=foreground and --cascade=orphan.
func (k kubectl) cascades(wg string) {
	k.t.Helper()
	for _, name := range []string{"owner-f", "dep-f", "owner-o", "dep-o"} {
		k.run("create", "configmap", name, "-n", "script")
	}
	for _, p := range [][2]string{{"dep-f", "owner-f"}, {"dep-o", "owner-o"}} {
		uid := k.run("get", "configmap", p[1], "-n", "script", "-o", "jsonpath={.metadata.uid}")
		k.run("patch", "configmap", p[0], "-n", "script", "--type=merge", "-p",
			`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"`+p[1]+`","uid":"`+uid+`","blockOwnerDeletion":true}]}}`)
	}
	k.run("delete", "configmap", "owner-f", "-n", "script", "--cascade=foreground", "--timeout=20s")
	if out, err := k.exec("get", "configmap", "dep-f", "-n", "script"); err == nil {
		k.t.Fatalf("dependent left after a foreground delete:\n%s", out)
	}
	k.run("delete", "configmap", "owner-o", "-n", "script", "--cascade=orphan", "--timeout=20s")
	if out := k.run("get", "configmap", "dep-o", "-n", "script", "-o", "jsonpath={.metadata.ownerReferences}"); out != "" {
		k.t.Fatalf("orphaned dependent still has references: %s", out)
	}
}

// syncBuffer is a strings.Builder safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
