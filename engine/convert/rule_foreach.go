package convert

import "github.com/dynapi/dynapi/internal/json/jsonscan"

// forEach applies nested rules to every item of the list at path; the
// nested rules' paths are relative to the item. Its inverse applies the
// nested rules inverted, in reverse order.
type forEach struct {
	path  path
	steps []step
}

func (r forEach) apply(d doc) {
	list := d.value(r.path)
	if !list.IsArray() {
		return
	}
	out := make([]byte, 0, len(list.Raw)+16)
	out = append(out, '[')
	changed := false
	jsonscan.EachItem(list.Raw, func(item string) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		it := d.item(item)
		run(r.steps, it)
		start := len(out)
		out = it.root.appendTo(out)
		changed = changed || string(out[start:]) != item
	})
	if changed {
		d.putRaw(r.path, string(append(out, ']')))
	}
}

func (r forEach) inverse() rule { return r.inverseIn("fromHub") }

// inverseIn inverts the nested rules, naming them as in the list where.
func (r forEach) inverseIn(where string) forEach {
	return forEach{path: r.path, steps: invert(r.steps, where)}
}

func (r forEach) uses() []use { return []use{inPlace("path", r.path)} }

func (r forEach) String() string {
	return flow("forEach", "path", r.path.text, "rules", "[...]")
}
