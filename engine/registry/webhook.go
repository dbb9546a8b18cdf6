package registry

import (
	"encoding/json"
	"slices"
)

// ConversionWebhook is a CustomResourceDefinition's
// spec.conversion.webhook, for a kind whose versions its webhook converts
// (conversion strategy Webhook).
type ConversionWebhook struct {
	// CRDName is the definition's name, <plural>.<group>: what kube names
	// the webhook after (conversion_webhook_for_<name>) and labels its
	// metrics with.
	CRDName string
	// ClientConfig is the webhook's clientConfig, as written (JSON): the
	// caller reads it as engine/webhook's ClientConfig, which the registry
	// does not import (it would bring the webhook client's dependencies).
	ClientConfig json.RawMessage
	// ReviewVersions is conversionReviewVersions, in the definition's
	// order of preference.
	ReviewVersions []string
}

// crdConversion is a CustomResourceDefinition's spec.conversion.
type crdConversion struct {
	Strategy string `json:"strategy"`
	Webhook  *struct {
		ClientConfig             json.RawMessage `json:"clientConfig"`
		ConversionReviewVersions []string        `json:"conversionReviewVersions"`
	} `json:"webhook"`
}

// webhook is the conversion webhook spec.conversion names, nil when the
// strategy is not Webhook or it names none.
func (c *crdConversion) webhook(crdName string) *ConversionWebhook {
	if c.Strategy != "Webhook" || c.Webhook == nil || len(c.Webhook.ClientConfig) == 0 {
		return nil
	}
	return &ConversionWebhook{CRDName: crdName, ClientConfig: c.Webhook.ClientConfig,
		ReviewVersions: slices.Clip(c.Webhook.ConversionReviewVersions)}
}

// ConvertsByWebhook reports whether r's versions are converted by its
// conversion webhook: it names one, and no rules file of dynapi's own
// converts it instead (see Unenforced).
func (r *Resource) ConvertsByWebhook() bool {
	return r.Webhook != nil && r.Conversion == nil
}

// webhookNotCalled is the Unenforced reason of a kind whose rules file
// wins over its conversion webhook.
func webhookNotCalled(file string) string {
	return "conversion: the webhook is not called; the rules in " + file + " convert its versions"
}
