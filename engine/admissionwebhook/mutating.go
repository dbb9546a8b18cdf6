package admissionwebhook

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/patch"
	"github.com/dynapi/dynapi/engine/webhook"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// Audit annotation prefixes, kube's.
const (
	mutationPrefix        = "mutation.webhook.admission.k8s.io/"
	patchPrefix           = "patch.webhook.admission.k8s.io/"
	failedOpenMutating    = "failed-open." + mutationPrefix
	failedOpenValidating  = "failed-open.validating.webhook.admission.k8s.io/"
	pluginMutatingWebhook = "MutatingAdmissionWebhook"
)

// maxPatchedBytes bounds the object a webhook's JSON patch makes, as a
// client's patch is bounded.
const maxPatchedBytes = 3 << 20

// Mutating is the MutatingAdmissionWebhook plug-in over an Index.
type Mutating struct {
	index  *Index
	client *webhook.Client
}

var _ admission.Mutator = (*Mutating)(nil)

// Mutating returns the mutating plug-in of x's webhooks, calling them with
// client.
func (x *Index) Mutating(client *webhook.Client) *Mutating {
	return &Mutating{index: x, client: client}
}

// Active says some MutatingWebhookConfiguration has a webhook.
func (m *Mutating) Active() bool { return len(m.index.snap.Load().mutating) > 0 }

// reinvocation is what the plug-in keeps between its two runs, kube's
// webhookReinvokeContext.
type reinvocation struct {
	last     []byte          // the object after the plug-in's last run
	invoked  map[string]bool // reinvocable webhooks called since the last change
	reinvoke map[string]bool // the webhooks to call on the second run
}

// changed moves the webhooks invoked so far to those to call again.
func (r *reinvocation) changed() {
	for uid := range r.invoked {
		r.reinvoke[uid] = true
	}
	clear(r.invoked)
}

// Admit calls the matching mutating webhooks in order, each with the
// object as the ones before left it, and applies their JSON patches.
// Errors: a denial, a failed call under failurePolicy Fail, kube's
// errors for a patch that does not apply.
func (m *Mutating) Admit(ctx context.Context, a *admission.Attributes, out *admission.Outcome) error {
	if exempt(a.Kind.Group, a.Kind.Kind) {
		return nil
	}
	rc := reinvocationOf(a)
	if a.Reinvocation().IsReinvoke() && !jsoneq.Equal(rc.last, a.Object) {
		rc.changed() // a later plug-in changed the object: every reinvocable webhook runs again
	}
	defer func() { rc.last = a.Object }()
	r := &request{attr: a, authz: m.index.authz}
	round := 0
	if a.Reinvocation().IsReinvoke() {
		round = 1
	}
	for i, h := range m.index.snap.Load().mutating {
		inv, err := r.shouldCall(ctx, h)
		if err != nil {
			return err
		}
		if inv == nil || round == 1 && !rc.reinvoke[h.uid] {
			continue
		}
		changed, err := m.callOne(ctx, r, inv, out, round, i)
		if changed {
			rc.changed()
			a.Reinvocation().SetShouldReinvoke()
		}
		if h.reinvocable() {
			rc.invoked[h.uid] = true
		}
		failedOpen := func() {
			out.Annotate(map[string]string{fmt.Sprintf("%sround_%d_index_%d", failedOpenMutating, round, i): h.Name})
		}
		if err := failure(ctx, h, err, failedOpen); err != nil {
			return err
		}
		r.versioned = nil // the object changed: versions are converted again
	}
	return nil
}

// reinvocationOf is the plug-in's record in a's reinvocation context.
func reinvocationOf(a *admission.Attributes) *reinvocation {
	if v, ok := a.Reinvocation().Value(pluginMutatingWebhook).(*reinvocation); ok {
		return v
	}
	rc := &reinvocation{invoked: map[string]bool{}, reinvoke: map[string]bool{}}
	a.Reinvocation().SetValue(pluginMutatingWebhook, rc)
	return rc
}

// callOne calls one mutating webhook and applies its patch to r's object
// (converted back from the webhook's version), and reports whether the
// object changed.
func (m *Mutating) callOne(ctx context.Context, r *request, inv *invocation, out *admission.Outcome, round, i int) (changed bool, err error) {
	h := inv.hook
	defer func() {
		out.Annotate(map[string]string{fmt.Sprintf("%sround_%d_index_%d", mutationPrefix, round, i): annotation(h, changed, nil)})
	}()
	va, err := r.versionedAttr(inv.version)
	if err != nil {
		return false, err
	}
	resp, err := call(ctx, m.client, h, r.attr, va)
	if resp != nil {
		out.Warn(resp.warnings...)
		out.Annotate(prefixed(h.Name, resp.auditAnnotations))
	}
	if err != nil || len(resp.patch) == 0 || string(resp.patch) == "[]" {
		return false, err
	}
	if va.Object == nil {
		return false, internal(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.Name))
	}
	patched, err := patch.JSON(va.Object, resp.patch, maxPatchedBytes)
	if err != nil {
		return false, internal(err)
	}
	changed = !jsoneq.Equal(va.Object, patched)
	out.Annotate(map[string]string{fmt.Sprintf("%sround_%d_index_%d", patchPrefix, round, i): annotation(h, changed, resp.patch)})
	if va != r.attr && r.attr.Convert != nil {
		if patched, err = r.attr.Convert(patched, va.Version, r.attr.Version); err != nil {
			return false, internal(err)
		}
	}
	r.attr.SetObject(patched)
	return changed, nil
}

// annotation is the value of kube's mutation (patch nil) and patch audit
// annotations.
func annotation(h *hook, mutated bool, jsonPatch []byte) string {
	v := map[string]any{"configuration": h.config, "webhook": h.Name}
	if jsonPatch == nil {
		v["mutated"] = mutated
	} else {
		v["patch"], v["patchType"] = json.RawMessage(jsonPatch), "JSONPatch"
	}
	b, _ := json.Marshal(v) // strings, a bool and valid JSON always encode
	return string(b)
}

// prefixed keys a webhook's audit annotations by its name, as kube does.
func prefixed(name string, annotations map[string]string) map[string]string {
	if len(annotations) == 0 {
		return nil
	}
	out := make(map[string]string, len(annotations))
	for k, v := range annotations {
		out[name+"/"+k] = v
	}
	return out
}
