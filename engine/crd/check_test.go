package crd

import (
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// fieldError is an engine.FieldError to expect; message is a substring.
type fieldError struct{ typ, path, message string }

func TestCheck(t *testing.T) {
	t.Parallel()
	good := crdJSON("stable.example.com", "crontabs", "CronTab", "ct")
	set := func(path string, value any) []byte {
		out, err := sjson.SetBytes(good, path, value)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name string
		obj  []byte
		want []fieldError
	}{
		{"a good definition", good, nil},
		{"name is not plural.group", set("metadata.name", "crontab.stable.example.com"), []fieldError{
			{engine.CauseInvalid, "metadata.name", `Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group`}}},
		{"group without a dot", set("spec.group", "stable"), []fieldError{
			{engine.CauseInvalid, "spec.group", "should be a domain with at least one dot"},
			{engine.CauseInvalid, "metadata.name", `must be spec.names.plural+"."+spec.group ("crontabs.stable")`}}},
		{"upper-case plural", set("spec.names.plural", "CronTabs"), []fieldError{
			{engine.CauseInvalid, "metadata.name", "must be"},
			{engine.CauseInvalid, "spec.names.plural", `Invalid value: "CronTabs": a DNS-1035 label`}}},
		{"no storage version", set("spec.versions.0.storage", false), []fieldError{
			{engine.CauseInvalid, "spec", "exactly one version must be the storage version"}}},
		{"schema that does not compile", set("spec.versions.0.schema.openAPIV3Schema.properties", "x"), []fieldError{
			{engine.CauseInvalid, "spec.versions", `Invalid value: "v1": schema:`}}},
		{"unknown field in spec", set("spec.colour", "red"), []fieldError{
			{engine.CauseInvalid, "spec", `unknown field "colour"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Check(tt.obj)
			if len(got) != len(tt.want) {
				t.Fatalf("Check = %+v, want %d causes", got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Type != w.typ || g.Path != w.path || !strings.Contains(g.Message, w.message) {
					t.Errorf("cause %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
