package crd

// Between definitions created through the API, the one created first
// holds a name: a later one that claims it is not handed to the registry.
// The registry would settle the conflict itself, but by the order it saw
// them in, which differs between a process that followed the definitions
// as they came and one that started later and listed them all at once.
// Creation order is the same for every process, so all serve the same.

// servable returns the definitions to hand to the registry: those that
// claim no name a definition created before them holds.
func (c *Controller) servable() map[string][]byte {
	p := c.newPass(nil, nil)
	defs := make(map[string][]byte, len(c.objects))
	for name, obj := range c.objects {
		d := c.definitionNamed(name, obj)
		if len(p.heldBefore(d).conflicts(d.names)) == 0 {
			defs[name] = obj
		}
	}
	return defs
}
