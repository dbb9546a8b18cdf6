package main

import (
	"regexp"
	"strings"
	"testing"
)

// kubectl learns the whole API from aggregated discovery: with an empty
// cache, api-resources asks /api and /apis once each and no group version.
func TestKubectlAggregatedDiscovery(t *testing.T) {
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	out := k.run("api-resources", "-v=6")
	for _, want := range []string{"widgets", "shop.example.com/v1", "namespaces"} {
		if !strings.Contains(out, want) {
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
