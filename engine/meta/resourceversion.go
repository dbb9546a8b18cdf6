package meta

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// SetResourceVersion returns obj with metadata.resourceVersion set to rv,
// as Kubernetes renders it (a string), and the bytes sjson would give.
// Every write sets it twice (the stored object, the answer): sjson's
// general path search took 16,700 instructions each on a 1.6 KB Widget
// (callgrind, 2,000 creates); finding metadata once and splicing the value
// in takes what the two lookups read. Objects whose metadata is not an
// object go through sjson (TestSetMetadataAsSjson holds the two to the
// same bytes).
func SetResourceVersion(obj []byte, rv int64) ([]byte, error) {
	var buf [24]byte // '"', 19 digits at most, '"'
	value := strconv.AppendInt(append(buf[:0], '"'), rv, 10)
	return setMetadataMember(obj, "resourceVersion", append(value, '"'))
}

// SetGeneration returns obj with metadata.generation set to n, the bytes
// sjson would give, as SetResourceVersion does: an update that changes
// the spec bumps it, and sjson took 9,000 instructions of such a PUT.
func SetGeneration(obj []byte, n int64) ([]byte, error) {
	return setMetadataMember(obj, "generation", strconv.AppendInt(nil, n, 10))
}

// setMetadataMember returns obj with metadata's member name set to the
// JSON text value.
func setMetadataMember(obj []byte, name string, value []byte) ([]byte, error) {
	m := gjson.Get(jsonscan.View(obj), "metadata") // read in place: the answer is built anew
	if !m.IsObject() || m.Index == 0 {
		return setMetadataSlowly(obj, name, value)
	}
	if old := m.Get(name); old.Exists() {
		if old.Index <= m.Index { // gjson knows no position (its Index is metadata's then)
			return setMetadataSlowly(obj, name, value)
		}
		return splice(obj, old.Index, old.Index+len(old.Raw), value), nil
	}
	end := m.Index + len(m.Raw) - 1 // metadata's closing brace: the member goes before it
	out := make([]byte, 0, len(obj)+len(name)+len(value)+4)
	out = append(out, obj[:end]...)
	if hasMembers(m) {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...) // a name of ours: no escapes
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, obj[end:]...), nil
}

// hasMembers reports whether the object m has at least one member.
func hasMembers(m gjson.Result) bool {
	found := false
	m.ForEach(func(_, _ gjson.Result) bool {
		found = true
		return false
	})
	return found
}

// splice returns obj with obj[from:to] replaced by with, in a new slice.
func splice(obj []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(obj)-(to-from)+len(with))
	out = append(out, obj[:from]...)
	out = append(out, with...)
	return append(out, obj[to:]...)
}

// setMetadataSlowly is setMetadataMember through sjson.
func setMetadataSlowly(obj []byte, name string, value []byte) ([]byte, error) {
	out, err := sjson.SetRawBytes(obj, "metadata."+name, value)
	if err != nil {
		return nil, fmt.Errorf("set metadata.%s: %w", name, err)
	}
	return out, nil
}
