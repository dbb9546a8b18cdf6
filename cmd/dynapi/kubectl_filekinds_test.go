package main

import (
	"strings"
	"testing"
)

// The rule for a CustomResourceDefinition of a kind a definition file
// serves (docs/file-crds.md's table), with the real kubectl: the server
// publishes one for each such kind, listed with its file, Established and
// read-only but for metadata (installers label them); one applied that
// matches the file configures it and is Established (served by the file,
// as its DefinitionFile condition says), so that `kubectl wait` returns;
// one that differs is refused with the file's name; one for a kind no
// file serves is served as before.
func TestKubectlDefinitionsOfFileKinds(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	server := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	const file = "labs.example.com/widget-crd.yaml"
	tests := []struct {
		name   string
		args   []string
		refuse bool     // kubectl fails
		want   []string // substrings of the output
	}{
		{"a file's kind listed", []string{"get", "crd", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.metadata.annotations.dynapi\.dev/definition-file};{end}`}, false,
			[]string{"warehouses.shop.example.com=shop.example.com/warehouse.yaml;", "widgets.labs.example.com=" + file + ";"}},
		{"a file's kind: established", []string{"wait", "--for=condition=Established", "crd/warehouses.shop.example.com", "--timeout=5s"}, false,
			[]string{"condition met"}},
		{"a file's kind: as YAML", []string{"get", "crd", "warehouses.shop.example.com", "-o", "yaml"}, false,
			[]string{"dynapi.dev/definition-file: shop.example.com/warehouse.yaml", "dynapi.dev/definition-sha256: ", "type: Established",
				"the kind is served from the definition file shop.example.com/warehouse.yaml"}},
		{"a file's kind: not deleted", []string{"delete", "crd", "warehouses.shop.example.com"}, true,
			[]string{`Error from server (Forbidden): customresourcedefinitions.apiextensions.k8s.io "warehouses.shop.example.com" is forbidden: ` +
				"the definition file shop.example.com/warehouse.yaml serves warehouses.shop.example.com: remove the file to remove the definition (its objects are kept)"}},
		{"a file's kind: spec not changed", []string{"patch", "crd", "warehouses.shop.example.com", "--type=merge", "-p", `{"spec":{"names":{"shortNames":["w"]}}}`}, true,
			[]string{"spec: Invalid value", "the definition file shop.example.com/warehouse.yaml serves warehouses.shop.example.com and wins"}},
		{"a file's kind: its file not renamed", []string{"annotate", "--overwrite", "crd", "warehouses.shop.example.com", "dynapi.dev/definition-file=mine.yaml"}, true,
			[]string{`metadata.annotations[dynapi.dev/definition-file]: Invalid value: "mine.yaml": set by the server: it must be "shop.example.com/warehouse.yaml"`}},
		{"a file's kind: its hash not changed", []string{"annotate", "--overwrite", "crd", "warehouses.shop.example.com", "dynapi.dev/definition-sha256=mine"}, true,
			[]string{`metadata.annotations[dynapi.dev/definition-sha256]: Invalid value: "mine": set by the server: it must be "`}},
		{"a file's kind: labelled", []string{"label", "crd", "warehouses.shop.example.com", "app.kubernetes.io/managed-by=Helm"}, false,
			[]string{"labeled"}},
		{"matches the file", []string{"apply", "-f", "../../schemas/labs.example.com/widget-crd.yaml"}, false,
			[]string{"customresourcedefinition.apiextensions.k8s.io/widgets.labs.example.com configured"}},
		{"matching: established", []string{"wait", "--for=condition=Established", "crd/widgets.labs.example.com", "--timeout=5s"}, false,
			[]string{"condition met"}},
		{"matching: served by the file", []string{"get", "crd", "widgets.labs.example.com", "-o",
			`jsonpath={.status.conditions[?(@.type=="DefinitionFile")].message} {.status.acceptedNames.shortNames}`}, false,
			[]string{"the kind is served from the definition file " + file, `["lwg"]`}},
		{"matching: applied again", []string{"apply", "-f", "../../schemas/labs.example.com/widget-crd.yaml"}, false,
			[]string{"customresourcedefinition.apiextensions.k8s.io/widgets.labs.example.com"}},
		{"another schema", []string{"apply", "-f", "testdata/kubectl/labs-widget-crd-schema.yaml"}, true,
			[]string{"spec: Invalid value", "the definition file " + file + " serves widgets.labs.example.com", "spec.versions[v1alpha1].schema differs"}},
		{"another scope", []string{"apply", "-f", "testdata/kubectl/labs-widget-crd-scope.yaml"}, true,
			[]string{"the definition file " + file, "spec.scope: Namespaced in the definition file, Cluster here"}},
		{"no file serves it", []string{"apply", "-f", "testdata/kubectl/crontab-crd.yaml"}, false,
			[]string{"crontabs.stable.example.com created"}},
		{"no file: established", []string{"wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=5s"}, false,
			[]string{"condition met"}},
		{"the file still serves", []string{"get", "lwg"}, false, []string{"No resources found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := kubectl{t: t, server: server, home: t.TempDir()}
			out, err := k.exec(tt.args...)
			if (err != nil) != tt.refuse {
				t.Fatalf("kubectl %s: err %v, want refused %t:\n%s", strings.Join(tt.args, " "), err, tt.refuse, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("kubectl %s: output lacks %q:\n%s", strings.Join(tt.args, " "), w, out)
				}
			}
		})
	}
}
