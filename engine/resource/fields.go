package resource

import "github.com/tidwall/gjson"

// Changed reports whether an update changes field (a gjson path): whether
// its value in w.Object differs from the one in w.Old, compared as JSON
// values (key order aside; absent and null are the same). It is false on
// create.
func (w *Write) Changed(field string) bool {
	if w.Old == nil {
		return false
	}
	a, b := gjson.GetBytes(w.Object, field), gjson.GetBytes(w.Old, field)
	if a.Type == gjson.Null && b.Type == gjson.Null {
		return false
	}
	return !sameValue(a, b, nil)
}
