package resource

import (
	"context"
	"testing"

	"github.com/dynapi/dynapi/engine/admission"
)

// idle is an admission plug-in with nothing configured, as the webhook
// plug-ins are until a configuration is stored.
type idle struct{}

func (idle) Active() bool { return false }

func (idle) Admit(context.Context, *admission.Attributes, *admission.Outcome) error { return nil }

func (idle) Validate(context.Context, *admission.Attributes, *admission.Outcome) error { return nil }

// passing is an active plug-in that admits everything: what building the
// attributes costs a write.
type passing struct{ idle }

func (passing) Active() bool { return true }

// BenchmarkWriteAdmission measures creates and updates of a ~1.2 KB Widget
// through the whole pipeline (over an in-memory store) with no admission
// chain, with the chain dynapi serves with when nothing is configured
// (two idle plug-ins a stage), and with one active plug-in a stage that
// admits everything.
func BenchmarkWriteAdmission(b *testing.B) {
	r, v := shippedWidget(b)
	t := Target{Resource: r, Version: v, Namespace: "default"}
	chains := []struct {
		name  string
		chain *admission.Chain
	}{
		{"none", nil},
		{"idle", &admission.Chain{Mutators: []admission.Mutator{idle{}, idle{}}, Validators: []admission.Validator{idle{}, idle{}}}},
		{"passing", &admission.Chain{Mutators: []admission.Mutator{passing{}}, Validators: []admission.Validator{passing{}}}},
	}
	for _, c := range chains {
		b.Run("chain="+c.name+"/op=create", func(b *testing.B) { benchCreate(b, t, namedWidget, c.chain) })
		b.Run("chain="+c.name+"/op=update", func(b *testing.B) { benchUpdate(b, t, true, c.chain) })
	}
}
