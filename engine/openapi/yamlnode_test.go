package openapi

import (
	"fmt"
	"os"
	"testing"

	"github.com/tidwall/gjson"
	"go.yaml.in/yaml/v3"

	"github.com/dynapi/dynapi/engine/registry"
)

// yamlNode builds the tree the YAML parser builds from the same JSON, so
// that gnostic reads the same document.
func TestYAMLNodeAsParsed(t *testing.T) {
	t.Parallel()
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	docs, err := Build(snap, noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	v2JSON, _ := v2Bytes(t, docs)
	tests := map[string]string{
		"the shipped kinds' v2 document": string(v2JSON),
		"scalars": `{"int":-12,"big":12345678901234567890,"huge":123456789012345678901234,"float":1.5,"exp":1e3,"negexp":-2.5E-3,
"zero":0,"t":true,"f":false,"n":null,"s":"a \"quoted\" \\ string \u00e9 \n","numeric":"12","boolish":"true","empty":""}`,
		"nesting": `{"a":[],"b":{},"c":[[1,"x"],{"d":[null]}],"":{"":""}}`,
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) {
			var parsed yaml.Node
			if err := yaml.Unmarshal([]byte(doc), &parsed); err != nil {
				t.Fatal(err)
			}
			if diff := nodeDiff("$", parsed.Content[0], yamlNode(gjson.Parse(doc))); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// nodeDiff describes the first difference between two trees, ignoring
// where the parser found each node and how it was written.
func nodeDiff(path string, want, got *yaml.Node) string {
	if want.Kind != got.Kind || want.Tag != got.Tag || want.Value != got.Value || len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: got kind %d %s %q (%d children), want kind %d %s %q (%d children)", path,
			got.Kind, got.Tag, got.Value, len(got.Content), want.Kind, want.Tag, want.Value, len(want.Content))
	}
	for i := range want.Content {
		if d := nodeDiff(path+"/"+fmt.Sprint(i), want.Content[i], got.Content[i]); d != "" {
			return d
		}
	}
	return ""
}
