package main

import (
	"strings"
	"testing"
)

// TestKubectlServerSideApply drives kubectl's server-side apply: create,
// a conflicting manager, --force-conflicts, managedFields shown, and an
// object created by client-side apply taken over by server-side apply.
func TestKubectlServerSideApply(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	k.run("create", "namespace", "applied-ns")
	const dir = "testdata/kubectl/"
	steps := []struct {
		args []string
		fail bool
		want []string
	}{
		{[]string{"apply", "--server-side", "-f", dir + "ssa-widget-3.yaml"}, false, []string{"widget.shop.example.com/ssa serverside-applied"}},
		{[]string{"apply", "--server-side", "-f", dir + "ssa-widget-3.yaml"}, false, []string{"serverside-applied"}},
		{[]string{"apply", "--server-side", "--field-manager=other", "-f", dir + "ssa-widget-5.yaml"}, true,
			[]string{"conflict", `"kubectl"`, ".spec.size"}},
		{[]string{"apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", dir + "ssa-widget-5.yaml"}, false,
			[]string{"serverside-applied"}},
		{[]string{"get", "wg", "ssa", "-n", "applied-ns", "--show-managed-fields", "-o", "yaml"}, false,
			[]string{"managedFields:", "manager: other", "manager: kubectl", "operation: Apply", "fieldsType: FieldsV1", "f:size: {}", "size: 5"}},
		{[]string{"get", "wg", "ssa", "-n", "applied-ns", "-o", "yaml"}, false, []string{"size: 5"}},
		// Client-side apply, then server-side apply takes it over (kube's
		// last-applied upgrade): no conflict with kubectl-client-side-apply.
		{[]string{"apply", "-f", dir + "csa-widget-3.yaml"}, false, []string{"widget.shop.example.com/csa created"}},
		{[]string{"apply", "--server-side", "-f", dir + "csa-widget-4.yaml"}, false, []string{"serverside-applied"}},
		{[]string{"get", "wg", "csa", "-n", "applied-ns", "--show-managed-fields", "-o", "yaml"}, false,
			[]string{"size: 4", "manager: kubectl", "operation: Apply"}},
	}
	for _, s := range steps {
		out, err := k.exec(s.args...)
		if (err != nil) != s.fail {
			t.Fatalf("kubectl %s: err %v (want failure: %v)\n%s", strings.Join(s.args, " "), err, s.fail, out)
		}
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(s.args, " "), w, out)
			}
		}
	}
}
