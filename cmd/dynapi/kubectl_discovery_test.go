package main

import (
	"regexp"
	"strings"
	"testing"
)

// kubectl learns the whole API from aggregated discovery: with an empty
// cache, api-resources asks /api and /apis once each and no group version.
// The reviews are listed as kube-apiserver's are.
func TestKubectlAggregatedDiscovery(t *testing.T) {
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	out := k.run("api-resources", "-v=6")
	for _, want := range []string{`widgets +wg +shop.example.com/v1 `, `namespaces +ns +v1 `,
		`\nselfsubjectreviews +authentication.k8s.io/v1 +false +SelfSubjectReview\n`,
		`\nlocalsubjectaccessreviews +authorization.k8s.io/v1 +true +LocalSubjectAccessReview\n`,
		`\nselfsubjectaccessreviews +authorization.k8s.io/v1 +false +SelfSubjectAccessReview\n`,
		`\nselfsubjectrulesreviews +authorization.k8s.io/v1 +false +SelfSubjectRulesReview\n`,
		`\nsubjectaccessreviews +authorization.k8s.io/v1 +false +SubjectAccessReview\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("api-resources lacks %q:\n%s", want, out)
		}
	}
	gets := regexp.MustCompile(`GET http://[^/ ]+(/[^ "]*)`).FindAllStringSubmatch(out, -1)
	var paths []string
	for _, g := range gets {
		paths = append(paths, g[1])
	}
	if strings.Join(paths, " ") != "/api /apis" && strings.Join(paths, " ") != "/api?timeout=32s /apis?timeout=32s" {
		t.Fatalf("discovery requests: %v\n%s", paths, out)
	}
}

// kubectl scale goes through the scale subresource of a kind that declares
// one; --current-replicas makes it read the Scale first and update it.
func TestKubectlScale(t *testing.T) {
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	k.run("apply", "-f", "testdata/kubectl/labs-widget.yaml")
	if out := k.run("scale", "widgets.labs.example.com/scaled", "--replicas=4"); !strings.Contains(out, "scaled") {
		t.Fatalf("scale: %s", out)
	}
	k.run("scale", "widgets.labs.example.com/scaled", "--current-replicas=4", "--replicas=6")
	if out := k.run("get", "widgets.labs.example.com/scaled", "-o", "jsonpath={.spec.replicas}"); out != "6" {
		t.Fatalf("replicas after kubectl scale: %q", out)
	}
	if out, err := k.exec("scale", "widgets.labs.example.com/scaled", "--current-replicas=1", "--replicas=2"); err == nil {
		t.Fatalf("scale with a wrong --current-replicas succeeded: %s", out)
	}
}
