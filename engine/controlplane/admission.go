package controlplane

import "github.com/dynapi/dynapi/engine/admission"

// newAdmission builds the admission chain of every write, in
// kube-apiserver's plug-in order (MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), and gives it to the service before
// anything writes through it. A plug-in with nothing configured costs a
// write one atomic load.
func (c *ControlPlane) newAdmission(cfg Config, p *policies) *admission.Chain {
	chain := &admission.Chain{
		Mutators:   []admission.Mutator{p.plugins.Mutating()},
		Validators: []admission.Validator{p.plugins.Validating()},
	}
	cfg.Service.SetAdmission(chain)
	return chain
}
