package controlplane

import (
	"github.com/dynapi/dynapi/engine/conversionwebhook"
)

// startConversionWebhooks has the service convert the kinds whose
// definitions name a conversion webhook by calling it, through the one
// webhook client, with kube's conversion metrics beside the client's.
func (c *ControlPlane) startConversionWebhooks(cfg Config) {
	var converter *conversionwebhook.Converter
	if cfg.HTTP.Metrics != nil {
		converter = conversionwebhook.New(c.webhooks, cfg.HTTP.Metrics)
	} else {
		converter = conversionwebhook.New(c.webhooks, nil) // not a nil *Registry in the interface
	}
	cfg.Service.ConversionWebhooks = converter
	c.conversions = converter // for the definitions' managedFields
}
