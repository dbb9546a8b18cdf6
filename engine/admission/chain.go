package admission

import (
	"context"
	"maps"

	"github.com/dynapi/dynapi/engine"
)

// Mutator is a mutating admission step: mutating admission policies,
// mutating webhooks.
type Mutator interface {
	// Active reports whether the plug-in has anything configured, from
	// its current snapshot, without building anything: a write with no
	// active plug-in builds no Attributes.
	Active() bool
	// Admit may replace a.Object (JSON, in a.Kind's version), and adds its
	// warnings and audit annotations to out. An error refuses the write
	// and is the answer (an *engine.Error in kube's words).
	Admit(ctx context.Context, a *Attributes, out *Outcome) error
}

// Validator is a validating admission step: validating admission
// policies, validating webhooks.
type Validator interface {
	// Active is Mutator's.
	Active() bool
	// Validate refuses the write with an error (the answer), and adds its
	// warnings and audit annotations to out. It must not change a.
	Validate(ctx context.Context, a *Attributes, out *Outcome) error
}

// Outcome is what admission adds to a write's answer besides refusing it.
type Outcome struct {
	// Warnings are sent to the client as Warning headers.
	Warnings []string
	// AuditAnnotations are added to the request's audit event (see
	// engine.AddAuditAnnotations), keyed "<plug-in prefix>/<key>".
	AuditAnnotations map[string]string
}

// Warn adds warnings to o.
func (o *Outcome) Warn(warnings ...string) { o.Warnings = append(o.Warnings, warnings...) }

// Annotate adds audit annotations to o.
func (o *Outcome) Annotate(annotations map[string]string) {
	if len(annotations) == 0 {
		return
	}
	if o.AuditAnnotations == nil {
		o.AuditAnnotations = map[string]string{}
	}
	maps.Copy(o.AuditAnnotations, annotations)
}

// Chain is the admission plug-ins of a server, each list in the order
// they run (kube's: policies before webhooks). The zero Chain admits
// everything, at no cost.
type Chain struct {
	Mutators   []Mutator
	Validators []Validator
}

// Mutating reports whether any mutating plug-in is active: the pipeline
// builds Attributes only then.
func (c *Chain) Mutating() bool {
	if c == nil {
		return false
	}
	for _, m := range c.Mutators {
		if m.Active() {
			return true
		}
	}
	return false
}

// Validating reports whether any validating plug-in is active.
func (c *Chain) Validating() bool {
	if c == nil {
		return false
	}
	for _, v := range c.Validators {
		if v.Active() {
			return true
		}
	}
	return false
}

// Admit runs the active mutating plug-ins in order over a, and once
// more, as kube's reinvoker does, when one of them asked for a second run
// (a plug-in with reinvocationPolicy IfNeeded whose input a later one
// changed). out's audit annotations go to the request's audit event,
// refused or not, as kube records them. Errors: the first plug-in's that
// refuses.
func (c *Chain) Admit(ctx context.Context, a *Attributes, out *Outcome) error {
	defer func() { engine.AddAuditAnnotations(ctx, out.AuditAnnotations) }() // the map as it is at the end
	if err := c.admitOnce(ctx, a, out); err != nil {
		return err
	}
	if !a.reinvoke.ShouldReinvoke() {
		return nil
	}
	a.reinvoke.SetIsReinvoke()
	return c.admitOnce(ctx, a, out)
}

func (c *Chain) admitOnce(ctx context.Context, a *Attributes, out *Outcome) error {
	for _, m := range c.Mutators {
		if !m.Active() {
			continue
		}
		if err := m.Admit(ctx, a, out); err != nil {
			return err
		}
	}
	return nil
}

// Validate runs the active validating plug-ins in order over a, and
// records out's audit annotations as Admit does. Errors: the first
// plug-in's that refuses.
func (c *Chain) Validate(ctx context.Context, a *Attributes, out *Outcome) error {
	defer func() { engine.AddAuditAnnotations(ctx, out.AuditAnnotations) }() // the map as it is at the end
	for _, v := range c.Validators {
		if !v.Active() {
			continue
		}
		if err := v.Validate(ctx, a, out); err != nil {
			return err
		}
	}
	return nil
}
