package controlplane

import "github.com/dynapi/dynapi/engine/admission"

// newAdmission builds the admission chain of every write, in
// kube-apiserver's plug-in order (MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), and gives it to the service before
// anything writes through it. A plug-in with nothing configured costs a
// write one atomic load.
func (c *ControlPlane) newAdmission(cfg Config) *admission.Chain {
	chain := &admission.Chain{}
	cfg.Service.SetAdmission(chain)
	return chain
}
