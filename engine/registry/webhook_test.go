package registry

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestConversionWebhook: a CRD's conversion webhook is read, and converts
// its versions unless a rules file does.
func TestConversionWebhook(t *testing.T) {
	t.Parallel()
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.shop.example.com}
spec:
  group: shop.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  conversion:
    strategy: %s
    webhook: {conversionReviewVersions: [v1beta1, v1], clientConfig: {url: "https://127.0.0.1:9443/convert"}}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
`
	rules := "group: shop.example.com\nkind: Widget\nhub: v1\nversions:\n  v2:\n    toHub: []\n"
	tests := []struct {
		name      string
		strategy  string
		rules     bool
		webhook   bool
		byWebhook bool
	}{
		{"webhook", "Webhook", false, true, true},
		{"webhook overridden by rules", "Webhook", true, true, false},
		{"strategy None", "None", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schemas := fstest.MapFS{"shop/widget.yaml": {Data: []byte(fmt.Sprintf(crd, tt.strategy))}}
			conversions := fstest.MapFS{}
			if tt.rules {
				conversions["shop/widget.yaml"] = &fstest.MapFile{Data: []byte(rules)}
			}
			snap, problems := LoadWith(schemas, conversions, LoadOptions{WithoutBuiltins: true})
			if len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			r, ok := snap.ResourceByKind("shop.example.com", "Widget")
			if !ok {
				t.Fatal("Widget not served")
			}
			if (r.Webhook != nil) != tt.webhook || r.ConvertsByWebhook() != tt.byWebhook {
				t.Fatalf("Webhook = %+v, ConvertsByWebhook = %v; want %v, %v", r.Webhook, r.ConvertsByWebhook(), tt.webhook, tt.byWebhook)
			}
			if r.Webhook == nil {
				return
			}
			if r.Webhook.CRDName != "widgets.shop.example.com" || len(r.Webhook.ReviewVersions) != 2 ||
				!jsoneq.Equal(r.Webhook.ClientConfig, []byte(`{"url":"https://127.0.0.1:9443/convert"}`)) {
				t.Errorf("Webhook = %s %v %s", r.Webhook.CRDName, r.Webhook.ReviewVersions, r.Webhook.ClientConfig)
			}
		})
	}
}
