package reload

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Policy says what a schema change that would break stored objects does.
type Policy string

// Schema change policies.
const (
	// PolicyReport lets the change take effect, and reports the check.
	PolicyReport Policy = "report"
	// PolicyRefuse keeps the previous definition serving, and reports the
	// change as a Problem of its file. So does a check that fails.
	PolicyRefuse Policy = "refuse"
)

// ParsePolicy reads a policy's name; "" is PolicyReport.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return PolicyReport, nil
	case PolicyReport, PolicyRefuse:
		return p, nil
	}
	return "", fmt.Errorf("schema change policy %q: must be %s or %s", s, PolicyReport, PolicyRefuse)
}

// checkChange is the registry's CheckChange for one build: it runs the
// Preview, logs and keeps its result, and refuses the change when the
// policy says so.
func (r *Reloader) checkChange(ctx context.Context, kept *checks) func(prev, next *registry.Resource) []string {
	if r.opts.Preview == nil {
		return nil
	}
	return func(prev, next *registry.Resource) []string {
		refuse := r.opts.Policy == PolicyRefuse
		file := r.pathOf(next.File, false)
		c, err := r.opts.Preview(ctx, prev, next)
		if err != nil {
			r.logger.Warn("schema change not checked against stored objects", "resource", next.GroupResource(), "file", file, "err", err)
			if refuse {
				return []string{"its stored objects could not be checked against its new schemas: " + err.Error()}
			}
			return nil
		}
		c.Refused = refuse && c.Breaks()
		kept.fresh[next.GroupResource()] = c
		level := slog.LevelInfo
		if c.Breaks() {
			level = slog.LevelWarn
		}
		r.logger.Log(ctx, level, "schema change checked against stored objects", "resource", next.GroupResource(), "file", file,
			"versions", c.Versions, "objects", c.Objects, "invalid", c.Invalid, "pruned", c.Pruned, "refused", c.Refused, "summary", c.String())
		if c.Refused {
			return []string{"its schema change would break stored objects (schema change policy refuse): " + c.String()}
		}
		return nil
	}
}

// checks gathers the SchemaChecks of one build over those of the last.
type checks struct {
	prev  []SchemaCheck
	fresh map[engine.GroupResource]SchemaCheck
}

func newChecks(prev []SchemaCheck) *checks {
	return &checks{prev: prev, fresh: map[engine.GroupResource]SchemaCheck{}}
}

// current lists the latest check of every resource snap defines, sorted.
func (c *checks) current(snap *registry.Snapshot) []SchemaCheck {
	defined := map[engine.GroupResource]bool{}
	for _, res := range snap.Resources() {
		defined[res.GroupResource()] = true
	}
	var out []SchemaCheck
	for _, check := range c.prev {
		if _, newer := c.fresh[groupResource(check)]; !newer && defined[groupResource(check)] {
			out = append(out, check)
		}
	}
	for gr, check := range c.fresh {
		if defined[gr] {
			out = append(out, check)
		}
	}
	slices.SortFunc(out, func(a, b SchemaCheck) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
	})
	return out
}

func groupResource(c SchemaCheck) engine.GroupResource {
	return engine.GroupResource{Group: c.Group, Resource: c.Resource}
}
