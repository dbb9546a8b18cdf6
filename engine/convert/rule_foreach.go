package convert

import "github.com/tidwall/gjson"

// forEach applies nested rules to every item of the list at path; the
// nested rules' paths are relative to the item. Its inverse applies the
// nested rules inverted, in reverse order.
type forEach struct {
	path  path
	steps []step
}

func (r forEach) apply(doc []byte) ([]byte, error) {
	v := get(doc, r.path)
	if !v.IsArray() {
		return doc, nil
	}
	out := make([]byte, 0, len(v.Raw)+16)
	out = append(out, '[')
	changed := false
	var err error
	v.ForEach(func(_, item gjson.Result) bool {
		var converted []byte
		converted, err = run(r.steps, []byte(item.Raw))
		if err != nil {
			return false
		}
		changed = changed || string(converted) != item.Raw
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, converted...)
		return true
	})
	if err != nil {
		return nil, err
	}
	if !changed {
		return doc, nil
	}
	return setRaw(doc, r.path, append(out, ']'))
}

// inverse inverts the nested rules; invert names them after the list
// that holds the forEach.
func (r forEach) inverse() rule {
	return forEach{path: r.path, steps: invert(r.steps, "fromHub")}
}

func (r forEach) uses() []use { return []use{inPlace("path", r.path)} }

func (r forEach) String() string {
	return flow("forEach", "path", r.path.text, "rules", "[...]")
}
