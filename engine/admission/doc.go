// Package admission is the admission seam of the write pipeline: the
// attributes of one admission request, decoded once from a write, and the
// plug-ins that mutate or validate it, run as two stages of the one
// pipeline (engine/resource) in kube-apiserver's order:
//
//	mutating plug-ins (mutating admission policies, then mutating webhooks)
//	→ schema validation and the kind's strategy
//	→ validating plug-ins (validating admission policies, then validating webhooks)
//
// on create, update, patch, apply, delete and the status and scale
// subresources, dry runs included. A Chain with nothing configured costs a
// write one atomic load per plug-in: each plug-in answers Active from the
// snapshot of its configuration objects before anything is built.
//
// Plug-ins live in their own packages (webhooks: engine/admission/webhooks)
// and are put in a Chain by the composition root (engine/controlplane).
package admission
