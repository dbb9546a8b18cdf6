package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/wait"
)

// TestKubectlAdmissionPolicy: with the real kubectl, a policy and its
// bindings are applied, a widget is refused with the policy's message,
// and a Warn binding's message is printed as a warning.
func TestKubectlAdmissionPolicy(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	out := k.run("apply", "-f", "testdata/policies/kubectl.yaml")
	for _, want := range []string{"validatingadmissionpolicy.admissionregistration.k8s.io/widget-colors created",
		"validatingadmissionpolicybinding.admissionregistration.k8s.io/widget-colors-lenient created"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply: %s\nwant %q", out, want)
		}
	}
	red := "{\"apiVersion\":\"shop.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"%s},\"spec\":{\"color\":\"red\",\"size\":9}}"
	want := `The widgets "ruby" is invalid: : ValidatingAdmissionPolicy 'widget-colors' with binding 'widget-colors' denied request: widget ruby may not be red`
	wait.Eventually(t, policyWait, func() (bool, string) {
		out, err := k.stdin(fmt.Sprintf(red, "ruby", ""), "apply", "-f", "-")
		return err != nil && strings.Contains(out, want), out
	})
	out, err := k.stdin(fmt.Sprintf(red, "rose", `,"labels":{"lenient":"yes"}`), "apply", "-f", "-")
	for _, w := range []string{
		"Warning: Validation failed for ValidatingAdmissionPolicy 'widget-colors' with binding 'widget-colors-lenient': widget rose may not be red",
		"Warning: Validation failed for ValidatingAdmissionPolicy 'widget-colors' with binding 'widget-colors-lenient': widgets larger than 5 are discouraged",
		"widget.shop.example.com/rose created"} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("lenient apply: %v %s\nwant %q", err, out, w)
		}
	}
}
