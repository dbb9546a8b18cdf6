package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// TestKubectlExplain: kubectl explain of CustomResourceDefinitions created
// through the API, as kube's crd_publish_openapi.go e2e specs run it: one
// without a validation schema (published as type object, not as
// preserving unknown fields, and explained as <empty>), ones whose plural
// is a built-in's (kube's services, dynapi's configmaps); and of the
// shipped examples, with their descriptions and defaults.
func TestKubectlExplain(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	server := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	for _, crd := range []string{"testdata/explain/empty-crd.yaml", "testdata/explain/services-crd.yaml", "testdata/explain/configmaps-crd.yaml"} {
		kubectl{t: t, server: server, home: t.TempDir()}.run("create", "-f", crd)
	}
	const definition = `definitions.com\.example\.empty\.v1\.E2eTestEmpty`
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		_, doc := httpGet(t, server+"/openapi/v2")
		return gjson.Get(doc, definition).Exists(), "the CRD published"
	})
	_, doc := httpGet(t, server+"/openapi/v2")
	def := gjson.Get(doc, definition)
	if def.Get("type").String() != "object" || def.Get("x-kubernetes-preserve-unknown-fields").Exists() {
		t.Errorf("the definition of a CRD without schema: %s", def.Raw)
	}
	// kubectl explain shows no schema default (1.32): the description
	// says it, and the document has it for the clients that read it.
	_, v3 := httpGet(t, server+"/openapi/v3/apis/shop.example.com/v1")
	if color := gjson.Get(v3, `components.schemas.com\.example\.shop\.v1\.Widget.properties.spec.properties.color`); color.Get("default").String() != "red" {
		t.Errorf("Widget's spec.color in /openapi/v3: %s", color.Raw)
	}
	tests := []struct {
		args    []string
		pattern string // kube's e2e patterns, where it has one
	}{
		{[]string{"explain", "e2e-test-empties"}, `(?s)DESCRIPTION:.*<empty>`},
		{[]string{"explain", "ksvc.spec"}, `(?s)DESCRIPTION:.*Specification of CustomService.*FIELDS:.*dummy.*<string>.*Dummy property`},
		{[]string{"explain", "services.service.example.com.spec"}, `(?s)Specification of CustomService`},
		{[]string{"explain", "kcm.spec"}, `(?s)DESCRIPTION:.*Specification of CustomConfigMap.*FIELDS:.*dummy.*<string>.*Dummy property`},
		{[]string{"explain", "configmaps", "--api-version=config.example.com/v1"}, `(?s)GROUP:\s+config.example.com.*CustomConfigMap CRD for Testing`},
		{[]string{"explain", "configmaps.data"}, `(?s)VERSION:\s+v1\s.*FIELD: data <map\[string\]string>`},
		{[]string{"explain", "widgets.shop.example.com"}, `(?s)DESCRIPTION:\s+Widget is a product of the shop`},
		{[]string{"explain", "wg.spec"}, `(?s)WidgetSpec is what the widget should be.*color\s+<string>\s+enum: red, green, blue\s+Color of the widget, one of red, green or blue. Defaults to red.`},
		{[]string{"explain", "pp.spec.size", "--api-version=plumbing.example.com/v2"}, `(?s)Size is the pipe's measures.*diameter\s+<integer> -required-\s+inner diameter in millimetres`},
		{[]string{"explain", "wh.spec"}, `(?s)WarehouseSpec is where the warehouse is.*location\s+<string> -required-\s+Location is`},
	}
	for _, tt := range tests {
		out := kubectl{t: t, server: server, home: t.TempDir()}.run(tt.args...)
		if !regexp.MustCompile(tt.pattern).MatchString(out) {
			t.Errorf("kubectl %s does not match %s:\n%s", strings.Join(tt.args, " "), tt.pattern, out)
		}
	}
	// Every field of the shipped examples is described.
	for _, field := range []string{"widgets.labs.example.com.spec", "widgets.labs.example.com.status", "wg.spec", "wg.spec.dimensions", "wh.spec",
		"pp.spec --api-version=plumbing.example.com/v1", "pp.spec --api-version=plumbing.example.com/v2", "pp.spec --api-version=plumbing.example.com/v3"} {
		out := kubectl{t: t, server: server, home: t.TempDir()}.run(append([]string{"explain"}, strings.Fields(field)...)...)
		if strings.Contains(out, "<no description>") {
			t.Errorf("kubectl explain %s:\n%s", field, out)
		}
	}
}
