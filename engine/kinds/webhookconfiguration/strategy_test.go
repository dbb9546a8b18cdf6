package webhookconfiguration_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/webhookconfiguration"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// TestValidate: a configuration is refused as kube refuses it, with kube's
// field paths and messages, every problem in one 422; kube's defaults are
// stored.
func TestValidate(t *testing.T) {
	kit := servicetest.Open(t)
	webhookconfiguration.Register(kit.Service)
	valid, err := os.ReadFile("testdata/validating.json")
	if err != nil {
		t.Fatal(err)
	}
	tv := target(t, kit, "validatingwebhookconfigurations")
	tm := target(t, kit, "mutatingwebhookconfigurations")
	tests := []struct {
		name  string
		edits map[string]any // sjson path: value (nil deletes)
		want  []string       // "path: message" of each cause
	}{
		{"valid", nil, nil},
		{"no sideEffects", map[string]any{"webhooks.0.sideEffects": nil},
			[]string{"webhooks[0].sideEffects: Required value"}}, // the schema's required, before kube's detail
		{"sideEffects Some", map[string]any{"webhooks.0.sideEffects": "Some"},
			[]string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"no admissionReviewVersions", map[string]any{"webhooks.0.admissionReviewVersions": nil},
			[]string{"webhooks[0].admissionReviewVersions: Required value"}},
		{"unknown admissionReviewVersions", map[string]any{"webhooks.0.admissionReviewVersions": []string{"v2"}},
			[]string{`webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`}},
		{"duplicate names", map[string]any{"webhooks.1": json.RawMessage(gjson.GetBytes(valid, "webhooks.0").Raw)},
			[]string{`webhooks[1]: Duplicate value: {"name":"check.example.com"}`}}, // the schema's list-map key
		{"name not qualified", map[string]any{"webhooks.0.name": "check"},
			[]string{`webhooks[0].name: Invalid value: "check": should be a domain with at least three segments separated by dots`}},
		{"timeout", map[string]any{"webhooks.0.timeoutSeconds": 31},
			[]string{"webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"}},
		{"url and service", map[string]any{"webhooks.0.clientConfig.service": map[string]any{"namespace": "a", "name": "b"}},
			[]string{"webhooks[0].clientConfig: Required value: exactly one of url or service is required"}},
		{"http url", map[string]any{"webhooks.0.clientConfig.url": "http://hooks.example.com"},
			[]string{`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`}},
		{"wildcard operations", map[string]any{"webhooks.0.rules.0.operations": []string{"*", "CREATE"}},
			[]string{`webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`}},
		{"wildcard resources", map[string]any{"webhooks.0.rules.0.resources": []string{"*", "widgets"}},
			[]string{`webhooks[0].rules[0].resources: Invalid value: ["*","widgets"]: if '*' is present, must not specify other resources without subresources`}},
		{"subresource wildcards", map[string]any{"webhooks.0.rules.0.resources": []string{"widgets/*", "widgets/status"}},
			[]string{`webhooks[0].rules[0].resources[1]: Invalid value: "widgets/status": if 'widgets/*' is present, must not specify widgets/status`}},
		{"scope", map[string]any{"webhooks.0.rules.0.scope": "Everywhere"},
			[]string{`webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"`}},
		{"matchCondition does not compile", map[string]any{"webhooks.0.matchConditions.0.expression": "object.spec.color =="},
			[]string{"webhooks[0].matchConditions[0].expression: Invalid value: \"object.spec.color ==\": compilation failed: ERROR: <input>:1:21: Syntax error: mismatched input '<EOF>'"}},
		{"matchCondition not bool", map[string]any{"webhooks.0.matchConditions.0.expression": "'x'"},
			[]string{`webhooks[0].matchConditions[0].expression: Invalid value: "'x'": must evaluate to bool`}},
		{"two problems at once", map[string]any{"webhooks.0.timeoutSeconds": 0, "webhooks.0.failurePolicy": "Maybe"},
			[]string{`webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"`,
				"webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, _ := sjson.SetBytes(valid, "metadata.name", "c"+string(rune('a'+i)))
			for path, v := range tt.edits {
				if v == nil {
					obj, _ = sjson.DeleteBytes(obj, path)
				} else {
					obj, _ = sjson.SetBytes(obj, path, v)
				}
			}
			res, err := kit.Service.Create(context.Background(), tv, obj, resource.WriteOptions{DryRun: true})
			got := causes(err)
			if len(got) != len(tt.want) {
				t.Fatalf("causes %q, want %q", got, tt.want)
			}
			for j := range got {
				if !strings.HasPrefix(got[j], tt.want[j]) {
					t.Errorf("cause %q, want %q", got[j], tt.want[j])
				}
			}
			if err == nil && gjson.GetBytes(res.Object, "webhooks.0.failurePolicy").String() != "Fail" {
				t.Errorf("no kube defaults: %s", res.Object)
			}
		})
	}
	t.Run("mutating defaults", func(t *testing.T) {
		obj, _ := sjson.SetBytes(valid, "kind", "MutatingWebhookConfiguration")
		obj, _ = sjson.SetBytes(obj, "webhooks.0.clientConfig", map[string]any{"service": map[string]any{"namespace": "a", "name": "b"}})
		res, err := kit.Service.Create(context.Background(), tm, obj, resource.WriteOptions{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		w := gjson.GetBytes(res.Object, "webhooks.0")
		for path, want := range map[string]string{"failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": "{}", "objectSelector": "{}",
			"timeoutSeconds": "10", "reinvocationPolicy": "Never", "rules.0.scope": "*", "clientConfig.service.port": "443"} {
			if got := w.Get(path).Raw; got != want && got != `"`+want+`"` {
				t.Errorf("%s = %s, want %s", path, got, want)
			}
		}
	})
}

// causes renders the causes of err as "path: message".
func causes(err error) []string {
	var e *engine.Error
	if !errors.As(err, &e) {
		if err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, c.Path+": "+c.Message)
	}
	return out
}

func target(t *testing.T, kit servicetest.Kit, res string) resource.Target {
	t.Helper()
	snap := kit.Snapshot
	r, v, ok := snap.Lookup("admissionregistration.k8s.io", "v1", res)
	if !ok {
		t.Fatalf("%s not served", res)
	}
	return resource.Target{Resource: r, Version: v}
}
