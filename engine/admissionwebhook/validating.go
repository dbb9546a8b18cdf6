package admissionwebhook

import (
	"context"
	"fmt"
	"sync"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/webhook"
)

// Validating is the ValidatingAdmissionWebhook plug-in over an Index.
type Validating struct {
	index  *Index
	client *webhook.Client
}

var _ admission.Validator = (*Validating)(nil)

// Validating returns the validating plug-in of x's webhooks, calling them
// with client.
func (x *Index) Validating(client *webhook.Client) *Validating {
	return &Validating{index: x, client: client}
}

// Active says some ValidatingWebhookConfiguration has a webhook.
func (v *Validating) Active() bool { return len(v.index.snap.Load().validating) > 0 }

// Validate finds the matching validating webhooks, then calls them all
// at once, as kube does. Errors: the first refusal in the webhooks'
// order (a denial, a failed call under failurePolicy Fail), or a
// matching error.
func (v *Validating) Validate(ctx context.Context, a *admission.Attributes, out *admission.Outcome) error {
	if exempt(a.Kind.Group, a.Kind.Kind) {
		return nil
	}
	r := &request{attr: a, authz: v.index.authz}
	var invs []*invocation
	for _, h := range v.index.snap.Load().validating {
		inv, err := r.shouldCall(ctx, h)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		if _, err := r.versionedAttr(inv.version); err != nil { // converted before the calls share them
			return err
		}
		invs = append(invs, inv)
	}
	if len(invs) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return engine.Errorf(engine.CodeTimeout, "Timeout: request did not complete within requested timeout")
	}
	return v.callAll(ctx, r, invs, out)
}

// callAll calls every invocation concurrently and merges their outcomes
// in the webhooks' order.
func (v *Validating) callAll(ctx context.Context, r *request, invs []*invocation, out *admission.Outcome) error {
	outs := make([]admission.Outcome, len(invs))
	errs := make([]error, len(invs))
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Go(func() { errs[i] = v.callOne(ctx, r, inv, &outs[i], i) })
	}
	wg.Wait()
	for i := range outs {
		out.Warn(outs[i].Warnings...)
		out.Annotate(outs[i].AuditAnnotations)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// callOne calls one validating webhook. Errors: its refusal.
func (v *Validating) callOne(ctx context.Context, r *request, inv *invocation, out *admission.Outcome, i int) error {
	h := inv.hook
	va := r.attr
	if inv.version != r.attr.Version {
		va = r.versioned[inv.version]
	}
	resp, err := call(ctx, v.client, h, r.attr, va)
	if resp != nil {
		out.Warn(resp.warnings...)
		out.Annotate(prefixed(h.Name, resp.auditAnnotations))
	}
	failedOpen := func() {
		out.Annotate(map[string]string{fmt.Sprintf("%sround_0_index_%d", failedOpenValidating, i): h.Name})
	}
	return failure(ctx, h, err, failedOpen)
}
