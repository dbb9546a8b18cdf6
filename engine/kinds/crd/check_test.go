package crd

import (
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/schema"
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
			got, warnings := Check(tt.obj)
			if len(warnings) > 0 {
				t.Errorf("warnings %q; want none", warnings)
			}
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

// TestCheckWarnsOfWhatIsNotDone: what dynapi does (the scale
// subresource, a conversion webhook) is no warning.
func TestCheckWarnsOfWhatIsNotDone(t *testing.T) {
	t.Parallel()
	obj := crdJSON("stable.example.com", "crontabs", "CronTab", "ct")
	for _, set := range []struct {
		path  string
		value any
	}{
		{"spec.versions.0.subresources.scale", map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
		{"spec.conversion", map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"conversionReviewVersions": []string{"v1"}, "clientConfig": map[string]any{"url": "https://example.com/convert"}}}},
	} {
		var err error
		if obj, err = sjson.SetBytes(obj, set.path, set.value); err != nil {
			t.Fatal(err)
		}
	}
	causes, warnings := Check(obj)
	if len(causes) > 0 || len(warnings) > 0 {
		t.Errorf("Check = %+v, %q; want no causes and no warnings", causes, warnings)
	}
}

// TestCheckRefusesRuleThatDoesNotCompile: a CEL rule that does not compile
// is a 422 cause naming the rule, its path and the compiler's message.
func TestCheckRefusesRuleThatDoesNotCompile(t *testing.T) {
	obj, err := sjson.SetBytes(crdJSON("stable.example.com", "crontabs", "CronTab", "ct"),
		"spec.versions.0.schema.openAPIV3Schema.properties.spec", map[string]any{"type": "object",
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.replicas <= 10"}}})
	if err != nil {
		t.Fatal(err)
	}
	causes, _ := Check(obj)
	want := `properties.spec.x-kubernetes-validations[0].rule: "self.replicas <= 10": compilation failed: ERROR: <input>:1:5: undefined field 'replicas'`
	if len(causes) != 1 || causes[0].Path != "spec.versions" || !strings.Contains(causes[0].Message, want) {
		t.Errorf("Check = %+v; want one cause on spec.versions containing %q", causes, want)
	}
}

// TestValidateAPIApproval: kube's validateAPIApproval. A definition in a
// protected group needs the api-approved.kubernetes.io annotation (a URL,
// or a value starting with "unapproved"); an update that leaves its state
// as it was passes, so that one stored before can still be updated.
func TestValidateAPIApproval(t *testing.T) {
	t.Parallel()
	with := func(group, value string) []byte {
		obj := crdJSON(group, "tests", "Test")
		if value == "" {
			return obj
		}
		out, err := sjson.SetBytes(obj, `metadata.annotations.api-approved\.kubernetes\.io`, value)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const (
		field    = "metadata.annotations[api-approved.kubernetes.io]"
		missing  = `Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`
		notAURL  = `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`
		approval = "https://github.com/kubernetes/kubernetes/pull/1"
	)
	tests := []struct {
		name     string
		obj, old []byte
		typ, msg string // the one cause; none when typ is ""
	}{
		{"another group", with("example.com", ""), nil, "", ""},
		{"a group ending in k8s.io, not a subdomain", with("notk8s.io", ""), nil, "", ""},
		{"k8s.io", with("k8s.io", ""), nil, engine.CauseRequired, missing},
		{"a subdomain of k8s.io", with("a.k8s.io", ""), nil, engine.CauseRequired, missing},
		{"kubernetes.io", with("kubernetes.io", ""), nil, engine.CauseRequired, missing},
		{"a subdomain of kubernetes.io", with("a.kubernetes.io", ""), nil, engine.CauseRequired, missing},
		{"neither a URL nor unapproved", with("a.k8s.io", "yes"), nil, engine.CauseInvalid, `Invalid value: "yes": ` + notAURL},
		{"a URL without a host", with("a.k8s.io", "https:///x"), nil, engine.CauseInvalid, `Invalid value: "https:///x": ` + notAURL},
		{"a URL", with("a.k8s.io", approval), nil, "", ""},
		{"unapproved", with("a.k8s.io", "unapproved, testing"), nil, "", ""},
		{"an update of one stored without it", with("a.k8s.io", ""), with("a.k8s.io", ""), "", ""},
		{"an update removing it", with("a.k8s.io", ""), with("a.k8s.io", approval), engine.CauseRequired, missing},
		{"an update from another URL", with("a.k8s.io", "https://example.com/2"), with("a.k8s.io", approval), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			causes, _ := Strategy{}.Validate(&resource.Write{Object: tt.obj, Old: tt.old})
			if tt.typ == "" {
				if len(causes) > 0 {
					t.Fatalf("causes %+v, want none", causes)
				}
				return
			}
			if len(causes) != 1 || causes[0].Type != tt.typ || causes[0].Path != field || causes[0].Message != tt.msg {
				t.Fatalf("causes %+v, want one %s on %s: %s", causes, tt.typ, field, tt.msg)
			}
		})
	}
}

// TestCheckCompilesNoValidator: checking a definition on its write
// compiles no jsonschema validator; its kind's first write does. Not
// parallel: it counts the process's validator compiles.
func TestCheckCompilesNoValidator(t *testing.T) {
	obj, err := sjson.SetRawBytes(crdJSON("lazy.example.com", "lazies", "Lazy"), "spec.versions.0.schema.openAPIV3Schema",
		[]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	before := schema.ValidatorCompiles()
	if causes, _ := Check(obj); len(causes) > 0 {
		t.Fatalf("Check = %+v, want no causes", causes)
	}
	if got := schema.ValidatorCompiles() - before; got != 0 {
		t.Errorf("Check compiled %d validators, want 0", got)
	}
}
