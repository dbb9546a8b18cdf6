package webhookconfiguration

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/resource"
)

// webhookDefaults are kube's defaults of a webhook's fields
// (SetDefaults_ValidatingWebhook, SetDefaults_MutatingWebhook).
var webhookDefaults = []struct {
	field        string
	value        any
	mutatingOnly bool
}{
	{"failurePolicy", "Fail", false},
	{"matchPolicy", "Equivalent", false},
	{"namespaceSelector", map[string]any{}, false},
	{"objectSelector", map[string]any{}, false},
	{"timeoutSeconds", 10, false},
	{"reinvocationPolicy", "Never", true},
}

// setDefaults sets kube's defaults of each webhook into w.Object: its
// fields', its rules' scope ("*") and its service's port (443).
func (s Strategy) setDefaults(w *resource.Write) error {
	obj := w.Object
	var err error
	for i, h := range gjson.GetBytes(obj, "webhooks").Array() {
		prefix := fmt.Sprintf("webhooks.%d.", i)
		for _, d := range webhookDefaults {
			if (!d.mutatingOnly || s.mutating) && !h.Get(d.field).Exists() {
				if obj, err = sjson.SetBytes(obj, prefix+d.field, d.value); err != nil {
					return fmt.Errorf("default %s%s: %w", prefix, d.field, err)
				}
			}
		}
		for j, r := range h.Get("rules").Array() {
			if !r.Get("scope").Exists() {
				if obj, err = sjson.SetBytes(obj, fmt.Sprintf("%srules.%d.scope", prefix, j), "*"); err != nil {
					return fmt.Errorf("default scope: %w", err)
				}
			}
		}
		if svc := h.Get("clientConfig.service"); svc.Exists() && !svc.Get("port").Exists() {
			if obj, err = sjson.SetBytes(obj, prefix+"clientConfig.service.port", 443); err != nil {
				return fmt.Errorf("default port: %w", err)
			}
		}
	}
	w.Object = obj
	return nil
}
