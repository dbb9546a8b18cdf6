package meta

import (
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// appendFast appends m as encoding/json encodes it, for metadata of the
// usual shape; ok is false for anything else (owner references, managed
// fields), which Set leaves to encoding/json. Why: encoding/json's
// reflection took 16,000 instructions of every create, PUT and patch
// (callgrind, a server taking dynapi-bench's Widgets). The members come in
// ObjectMeta's field order, each left out when empty as its omitempty
// tag says, strings escaped as encoding/json escapes them
// (jsonscan.AppendQuoted), map keys sorted as encoding/json sorts them.
// TestSetFastAgrees and FuzzSetFastAgrees hold it to encoding/json.
func appendFast(b []byte, m *metav1.ObjectMeta) ([]byte, bool) {
	if len(m.OwnerReferences) > 0 || len(m.ManagedFields) > 0 {
		return b, false
	}
	b = append(b, '{')
	for _, f := range []struct{ name, value string }{
		{"name", m.Name}, {"generateName", m.GenerateName}, {"namespace", m.Namespace},
		{"selfLink", m.SelfLink}, {"uid", string(m.UID)}, {"resourceVersion", m.ResourceVersion},
	} {
		if f.value != "" {
			b = jsonscan.AppendQuoted(appendName(b, f.name), f.value)
		}
	}
	if m.Generation != 0 {
		b = strconv.AppendInt(appendName(b, "generation"), m.Generation, 10)
	}
	if !m.CreationTimestamp.IsZero() {
		b = appendTime(appendName(b, "creationTimestamp"), m.CreationTimestamp)
	}
	if m.DeletionTimestamp != nil {
		b = appendTime(appendName(b, "deletionTimestamp"), *m.DeletionTimestamp)
	}
	if m.DeletionGracePeriodSeconds != nil {
		b = strconv.AppendInt(appendName(b, "deletionGracePeriodSeconds"), *m.DeletionGracePeriodSeconds, 10)
	}
	b = appendStringMap(b, "labels", m.Labels)
	b = appendStringMap(b, "annotations", m.Annotations)
	if len(m.Finalizers) > 0 {
		b = append(appendName(b, "finalizers"), '[')
		for i, f := range m.Finalizers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonscan.AppendQuoted(b, f)
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

// appendName appends a member's name and colon, after a comma unless it
// is the object's first member.
func appendName(b []byte, name string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendTime appends t as metav1.Time's MarshalJSON does: null when zero,
// else RFC 3339 in UTC, to the second.
func appendTime(b []byte, t metav1.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"')
}

// appendStringMap appends the member name with m's entries in the order
// of their keys, unless m is empty.
func appendStringMap(b []byte, name string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	var buf [16]string // on the stack: most maps are small
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(appendName(b, name), '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendQuoted(b, k)
		b = jsonscan.AppendQuoted(append(b, ':'), m[k])
	}
	return append(b, '}')
}
