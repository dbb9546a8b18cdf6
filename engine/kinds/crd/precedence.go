package crd

// Between definitions created through the API, the one created first
// holds a name: a later one that claims it is not handed to the registry.
// The registry would settle the conflict itself, but by the order it saw
// them in, which differs between a process that followed the definitions
// as they came and one that started later and listed them all at once.
// Creation order is the same for every process, so all serve the same.

// servable returns the definitions to hand to the registry: those that
// claim no name a definition created before them holds, and that do not
// match a definition file (which serves them), nor were published for one.
// Precedence is decided again only in the groups whose definitions changed
// since the last call (c.respec).
func (c *Controller) servable() map[string][]byte {
	ch := c.respec
	c.respec = newChanges()
	p := c.newPass(nil, nil)
	if ch.all {
		clear(c.blocked)
		for group := range p.byGroup {
			ch.groups[group] = true
		}
	}
	for group := range ch.groups {
		for _, d := range p.byGroup[group] {
			if len(p.heldBefore(d).conflicts(d.names)) > 0 {
				c.blocked[d.name] = true
			} else {
				delete(c.blocked, d.name)
			}
		}
	}
	defs := make(map[string][]byte, len(c.objects))
	snap := c.defs.Load()
	for name, obj := range c.objects {
		// One that matches a definition file is served by the file; one
		// published for a file is never served through the API, not even
		// once its file is gone (its kind is then unserved).
		if _, byFile := servedByFile(snap, c.definitionNamed(name, obj)); !c.blocked[name] && !byFile && annotatedFile(obj) == "" {
			defs[name] = obj
		}
	}
	return defs
}
