package conversionrules

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/prove"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Check returns the problems of a ConversionRules object about to be
// written (obj: JSON, valid against the kind's schema), judged against the
// kinds snap serves: its name must be that of the kind it converts (see
// nameFor), and its rules must bind to that kind's schemas and survive
// `dynapi check`'s proof. Rules for a kind snap does not serve cannot be
// checked yet: they are accepted with a warning, as are rules a file
// overrides.
func Check(obj []byte, snap *registry.Snapshot) ([]engine.FieldError, []string) {
	spec := gjson.GetBytes(obj, "spec")
	group, kind := spec.Get("group").Str, spec.Get("kind").Str
	name := gjson.GetBytes(obj, "metadata.name").Str
	if want := nameFor(group, kind); name != want {
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: "metadata.name",
			Message: "Invalid value: \"" + name + "\": must be " + want + ", the kind the rules convert in lower case, then its group"}}, nil
	}
	r, ok := snap.ResourceByKind(group, kind)
	if !ok {
		return nil, []string{"no kind " + kindName(group, kind) + " is served: its rules are checked and applied when it is"}
	}
	checked, problems := r.WithRules(registry.APIRulesPrefix+name, specOf(obj))
	if len(problems) > 0 {
		return ruleCauses(problems, kindName(group, kind)+": "), nil
	}
	var causes []engine.FieldError
	for _, f := range prove.Kind(checked) {
		causes = append(causes, failureCause(f))
	}
	if len(causes) > 0 || r.ConversionFile == "" || registry.IsAPIFile(r.ConversionFile) {
		return causes, nil
	}
	return nil, []string{"the rules file " + r.ConversionFile + " gives the rules of " + kindName(group, kind) + ", and wins: these are not applied"}
}

// nameFor is the name of the ConversionRules object of a kind:
// "pipe.plumbing.example.com", or "<kind>.core" for the core group. One
// name per kind: a kind has at most one object.
func nameFor(group, kind string) string {
	if group == "" {
		group = "core"
	}
	return strings.ToLower(kind) + "." + group
}

// kindName is how the registry names a kind: "Pipe.plumbing.example.com".
func kindName(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// ruleCauses turns the registry's problems with rules ("Pipe.g: versions.v1.toHub[0]:
// move: ...") into causes on the rule's place in spec.
func ruleCauses(problems []registry.Problem, prefix string) []engine.FieldError {
	causes := make([]engine.FieldError, 0, len(problems))
	for _, p := range problems {
		reason := strings.TrimPrefix(p.Reason, prefix)
		where, rest, ok := strings.Cut(reason, ": ")
		if !ok || strings.ContainsAny(where, " \"") {
			where, rest = "", reason
		}
		causes = append(causes, engine.FieldError{Type: engine.CauseInvalid, Path: specPath(where), Message: rest})
	}
	return causes
}

// failureCause is a proof's failure as a cause on the first rule it names
// ("versions.v1.toHub[2]: move {...}"), its message the field and reason.
func failureCause(f prove.Failure) engine.FieldError {
	where := ""
	if len(f.Rules) > 0 {
		where, _, _ = strings.Cut(f.Rules[0], ": ")
	}
	f.File = ""
	return engine.FieldError{Type: engine.CauseInvalid, Path: specPath(where), Message: strings.TrimPrefix(f.String(), ": ")}
}

// specPath is a place in a rules document as a field of the object.
func specPath(where string) string {
	if where == "" {
		return "spec"
	}
	return "spec." + where
}

// Strategy is the ConversionRules' strategy: Check on every write but
// those of /status, which the Controller makes.
type Strategy struct {
	resource.CustomResource
	defs Definitions
}

// Validate runs Check against the snapshot the process serves.
func (s Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	if w.Target.Subresource == "status" {
		return nil, nil
	}
	return Check(w.Object, s.defs.Load())
}
