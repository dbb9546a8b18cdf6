package registry

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/dynapi/dynapi/engine"
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

// BatchConverter converts objects of a kind converted by its webhook
// (conversionwebhook.Converter): objs into version to, in one call.
type BatchConverter interface {
	Convert(ctx context.Context, r *Resource, objs [][]byte, to string, list bool) ([][]byte, error)
}

// ErrWebhookNotCalled answers a conversion that needs a webhook where none
// is called (no converter was given, as in the offline tools): kube's 500
// with no reason, as for a webhook that fails.
var ErrWebhookNotCalled = engine.Errorf(engine.CodeUnknown, "conversion webhooks are not called here")

// convertByWebhook converts one object of r for managedFields, as kube's
// field manager does: through the webhook, outside of any request (kube
// calls it with context.TODO); the call's own timeout bounds it.
func convertByWebhook(webhooks BatchConverter, r *Resource, obj []byte, to string) ([]byte, error) {
	if webhooks == nil {
		return nil, ErrWebhookNotCalled
	}
	out, err := webhooks.Convert(context.Background(), r, [][]byte{obj}, to, false)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
