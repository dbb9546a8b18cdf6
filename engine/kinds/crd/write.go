package crd

import (
	"context"
	"fmt"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// maxStatusAttempts bounds the re-reads after a Conflict. Another process
// that wrote first usually wrote the same status: the re-read then finds
// nothing to do.
const maxStatusAttempts = 5

// writeStatus writes definition name's status through the status
// subresource, when it is not what snap says. It is called with c.mu
// held, and lets it go while it waits for the database.
//
// Processes whose definition files differ (a rolling deploy, a file
// changed on one machine first) disagree on a status. Each writes its view
// only when the view changed, not whenever the stored status differs from
// it: otherwise each write would make the other process write back, for ever.
// The status of a published definition is written only by the processes
// that published its spec (see ownsStatus).
func (c *Controller) writeStatus(ctx context.Context, t resource.Target, snap *registry.Snapshot, problems []registry.Problem, name string) error {
	obj := c.objects[name]
	for attempt := 1; ; attempt++ {
		if !c.ownsStatus(obj) {
			return nil
		}
		st, changed := c.statusOf(obj, snap, problems)
		view := st.view()
		if !changed {
			c.views[name] = view
		}
		if !changed || c.views[name] == view {
			return nil
		}
		body, err := sjson.SetRawBytes(obj, "status", []byte(st.json()))
		if err != nil {
			return fmt.Errorf("set status: %w", err)
		}
		t.Subresource = "status"
		var res resource.Result
		c.unlocked(func() { res, err = c.service.Update(ctx, t, name, body, resource.WriteOptions{}) })
		if err == nil {
			c.views[name] = view
			c.remember(res.Object)
			return nil
		}
		if engine.ErrorCode(err) != engine.CodeConflict || attempt == maxStatusAttempts {
			return ignoreNotFound(err)
		}
		c.unlocked(func() { obj, err = c.service.Get(ctx, t, name) })
		if err != nil {
			return ignoreNotFound(err)
		}
		c.remember(obj)
	}
}

// unlocked runs f without c.mu, which writeStatus holds: reconcile's
// status writers wait for the database together, not in turn.
func (c *Controller) unlocked(f func()) {
	c.mu.Unlock()
	defer c.mu.Lock()
	f()
}

// ignoreNotFound drops NotFound: a definition deleted meanwhile needs no
// status, and its DELETED event is on its way.
func ignoreNotFound(err error) error {
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return nil
	}
	return err
}
