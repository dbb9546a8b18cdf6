package resource

import (
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// addBody passes r, a requirement on a selectable field of the target's
// version, to the store as a requirement on the stored bodies when the
// field is at the same path in them:
//
//   - a kind without rules or webhook has one shape in every version, so
//     the path holds in every stored body, whatever its version;
//   - a kind converted by its webhook: only for the storage version, on
//     the bodies stored in it (bodyVersion); what the webhook makes of
//     a body in another version is known only once it has answered;
//   - a kind with rules: only when the storage version declares the same
//     selectable field and no rule of the target's or the storage version
//     reads or writes it (so that conversion through the hub leaves it where
//     it is). Objects stored in an older version may hold the field
//     elsewhere: the store lets them all through (bodyVersion), and they
//     are filtered after conversion like every object.
//
// Why the filter after conversion stays for every object: it is the
// reference (the store's text forms of numbers may differ in corner
// cases, such as 3.0), and a false match from the store costs only a row.
func (f *filter) addBody(t Target, r engine.FieldRequirement) {
	res := t.Resource
	if res.ConvertsByWebhook() {
		if t.Version.Name != res.StorageVersion {
			return
		}
		f.bodyVersion = res.StorageVersion
	}
	if res.Conversion != nil {
		storage, ok := res.Version(res.StorageVersion)
		keys := strings.Split(r.Path, ".")
		if !ok || !selectableIn(storage, r.Path) ||
			res.Conversion.RulesAt(t.Version.Name, keys) != nil || res.Conversion.RulesAt(res.StorageVersion, keys) != nil {
			return
		}
		f.bodyVersion = res.StorageVersion
	}
	f.body = append(f.body, r)
}
