package resource

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// Changed reports whether an update changes field (a gjson path): whether
// its value in w.Object differs from the one in w.Old, compared as JSON
// values (key order aside; absent and null are the same). It is false on
// create.
func (w *Write) Changed(field string) bool {
	if w.Old == nil {
		return false
	}
	a, b := lookup(w.Object, field), lookup(w.Old, field)
	if a.Type == gjson.Null && b.Type == gjson.Null {
		return false
	}
	return !jsoneq.Options{NumbersAsWritten: true}.EqualText(a.Raw, b.Raw)
}
