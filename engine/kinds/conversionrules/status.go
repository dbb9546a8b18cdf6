package conversionrules

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// condition is the one entry of status.conditions, Active.
type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

// view is what a condition says, without its time.
func (c condition) view() string { return c.Status + "/" + c.Reason + "/" + c.Message }

// Reasons of the Active condition.
const (
	ReasonConverting       = "Converting"       // True: the rules convert the kind
	ReasonOverriddenByFile = "OverriddenByFile" // a rules file for the kind wins
	ReasonKindNotServed    = "KindNotServed"    // no such kind is served
	ReasonRefused          = "Refused"          // the rules do not fit the kind's schemas
	ReasonNotApplied       = "NotApplied"       // the kind serves on as it was: its new definition or rules were refused
)

// activeIn is the Active condition of object name, whose rules convert
// group/kind, in snap with its problems.
func activeIn(snap *registry.Snapshot, problems []registry.Problem, name, group, kind string) condition {
	file := registry.APIRulesPrefix + name
	var refusals []string
	for _, p := range problems {
		switch {
		case p.File != file:
		case p.Warning && strings.Contains(p.Reason, registry.RulesOverridden):
			return falseCondition(ReasonOverriddenByFile, trimKind(p.Reason, group, kind))
		case !p.Warning:
			refusals = append(refusals, trimKind(p.Reason, group, kind))
		}
	}
	if len(refusals) > 0 {
		return falseCondition(ReasonRefused, strings.Join(refusals, "; "))
	}
	r, ok := snap.ResourceByKind(group, kind)
	switch {
	case !ok:
		return falseCondition(ReasonKindNotServed, "no kind "+kindName(group, kind)+" is served")
	case r.ConversionFile != file:
		return falseCondition(ReasonNotApplied, kindName(group, kind)+" serves with its previous definition and rules (GET /debug/definitions says why)")
	}
	return condition{Type: "Active", Status: "True", Reason: ReasonConverting,
		Message: "the rules convert " + kindName(group, kind) + " through its hub " + r.Conversion.Hub()}
}

func falseCondition(reason, message string) condition {
	return condition{Type: "Active", Status: "False", Reason: reason, Message: message}
}

// trimKind drops the kind's name the registry starts a reason with.
func trimKind(reason, group, kind string) string {
	return strings.TrimPrefix(reason, kindName(group, kind)+": ")
}

// storedCondition reads the Active condition obj's status holds.
func storedCondition(obj []byte) condition {
	var c condition
	for _, raw := range gjson.GetBytes(obj, "status.conditions").Array() {
		if raw.Get("type").Str == "Active" {
			_ = json.Unmarshal([]byte(raw.Raw), &c) // written by the kind's schema: well formed
		}
	}
	return c
}

// maxStatusAttempts bounds the re-reads after a Conflict: another process
// that wrote first usually wrote the same status.
const maxStatusAttempts = 5

// writeStatus writes object name's status through the status subresource
// when its condition is not what snap says. Processes whose rules files
// differ (a rolling deploy) disagree on it: each writes its view only when
// that view changed, not whenever the stored one differs, or each write
// would make the other process write back, for ever.
func (c *Controller) writeStatus(ctx context.Context, t resource.Target, snap *registry.Snapshot, problems []registry.Problem, name string) error {
	obj := c.objects[name]
	for attempt := 1; ; attempt++ {
		spec := gjson.GetBytes(obj, "spec")
		want, old := activeIn(snap, problems, name, spec.Get("group").Str, spec.Get("kind").Str), storedCondition(obj)
		if want.view() == old.view() || c.views[name] == want.view() {
			c.views[name] = want.view()
			return nil
		}
		want.LastTransitionTime = c.Now().UTC().Format(time.RFC3339)
		if old.Status == want.Status && old.LastTransitionTime != "" {
			want.LastTransitionTime = old.LastTransitionTime
		}
		res, err := c.updateStatus(ctx, t, obj, want)
		if err == nil {
			c.views[name] = want.view()
			c.remember(res)
			return nil
		}
		if engine.ErrorCode(err) != engine.CodeConflict || attempt == maxStatusAttempts {
			return ignoreNotFound(err)
		}
		if obj, err = c.service.Get(ctx, t, name); err != nil {
			return ignoreNotFound(err)
		}
		c.remember(obj)
	}
}

// updateStatus writes obj with cond as its one condition and returns what
// was stored.
func (c *Controller) updateStatus(ctx context.Context, t resource.Target, obj []byte, cond condition) ([]byte, error) {
	raw, err := json.Marshal([]condition{cond})
	if err != nil {
		return nil, err
	}
	body, err := sjson.SetRawBytes(obj, "status.conditions", raw)
	if err != nil {
		return nil, fmt.Errorf("set status: %w", err)
	}
	t.Subresource = "status"
	res, err := c.service.Update(ctx, t, nameOf(obj), body, resource.WriteOptions{})
	return res.Object, err
}

// ignoreNotFound drops NotFound: an object deleted meanwhile needs no
// status, and its DELETED event is on its way.
func ignoreNotFound(err error) error {
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return nil
	}
	return err
}
