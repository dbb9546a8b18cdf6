package controlplane

import (
	"context"
	"time"

	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/admissionwebhook"
	"github.com/dynapi/dynapi/engine/authz"
)

// admissionSyncTimeout bounds the first listing of the webhook
// configurations at start.
const admissionSyncTimeout = 30 * time.Second

// newAdmission builds the admission chain of every write, in
// kube-apiserver's plug-in order (MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), and gives it to the service before
// anything writes through it. A plug-in with nothing configured costs a
// write one atomic load. a answers the `authorizer` of the webhooks'
// matchConditions, as it does the policies'. It returns the index of the
// webhook configurations, for startAdmission to fill.
func (c *ControlPlane) newAdmission(cfg Config, p *policies, a authz.Authorizer) *admissionwebhook.Index {
	webhooks := admissionwebhook.NewIndex(cfg.Service, c.snapshots, cfg.Logger, admissionpolicy.NewAuthorizer(a))
	chain := &admission.Chain{
		Mutators:   []admission.Mutator{p.plugins.Mutating(), webhooks.Mutating(c.webhooks)},
		Validators: []admission.Validator{p.plugins.Validating(), webhooks.Validating(c.webhooks)},
	}
	cfg.Service.SetAdmission(chain)
	return webhooks
}

// startAdmission starts following the webhook configurations and waits
// until they are listed, so that no write is served before the webhooks
// in force are known; nothing when admissionregistration.k8s.io/v1 is
// switched off. Errors: WaitSynced's.
func (c *ControlPlane) startAdmission(ctx context.Context, webhooks *admissionwebhook.Index) error {
	if _, _, ok := c.snapshots.Load().Lookup(admissionwebhook.Group, "v1", "validatingwebhookconfigurations"); !ok {
		return nil
	}
	c.Go(ctx, webhooks.Run)
	waitCtx, cancel := context.WithTimeout(ctx, admissionSyncTimeout)
	defer cancel()
	return webhooks.WaitSynced(waitCtx)
}
