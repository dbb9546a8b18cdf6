package apply

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestAddFieldsMatchesStructuredMergeDiff: the field set addFields writes
// into the bytes is the one structured-merge-diff's set serializes, byte
// for byte, from a set it serialized; from one in another order (jsonb
// prints keys by length), the same set.
func TestAddFieldsMatchesStructuredMergeDiff(t *testing.T) {
	meta := `{"f:metadata":{"f:annotations":{".":{},"f:b":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:size":{}}}`
	tests := []struct {
		name   string
		fields string
		paths  [][]string
		bytes  bool // answered in the bytes, not by structured-merge-diff
	}{
		{"annotation first", meta, [][]string{{"metadata", "annotations", "a"}}, true},
		{"annotation between", meta, [][]string{{"metadata", "annotations", "ba"}}, true},
		{"annotation last", meta, [][]string{{"metadata", "annotations", "c"}}, true},
		{"annotation there already", meta, [][]string{{"metadata", "annotations", "b"}}, true},
		{"label with a slash", meta, [][]string{{"metadata", "labels", "example.com/x"}}, true},
		{"annotations added", `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`, [][]string{{"metadata", "annotations"}, {"metadata", "annotations", "a"}, {"metadata", "annotations", "z"}}, true},
		{"metadata added", `{"f:spec":{".":{},"f:size":{}}}`, [][]string{{"metadata", "labels"}, {"metadata", "labels", "a"}}, true},
		{"into an empty set", `{}`, [][]string{{"spec", "x"}, {"spec", "x", "y"}}, true},
		{"below a leaf", `{"f:spec":{".":{},"f:x":{}}}`, [][]string{{"spec", "x", "y"}}, true},
		{"a node made a member", `{"f:spec":{"f:x":{}}}`, [][]string{{"spec"}}, true},
		{"nested objects", `{"f:spec":{".":{},"f:a":{}}}`, [][]string{{"spec", "n"}, {"spec", "n", "a"}, {"spec", "n", "a", "b"}, {"spec", "m"}}, true},
		{"a name to escape", meta, [][]string{{"metadata", "annotations", "a<b"}}, false},
		{"beside a list's keys", `{"f:spec":{"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:name":{}}}}}`, [][]string{{"spec", "ports", "x"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := tt.paths
			want, ok := addFieldsSet(tt.fields, paths)
			if !ok {
				t.Fatal("structured-merge-diff refused the set")
			}
			if _, inBytes := addAllPaths(tt.fields, paths); inBytes != tt.bytes {
				t.Fatalf("answered in the bytes: %v, want %v", inBytes, tt.bytes)
			}
			got, ok := addFields(tt.fields, paths)
			if !ok || got != want {
				t.Fatalf("addFields = %s, %v\nwant %s", got, ok, want)
			}
			got, ok = addFields(reorder(tt.fields), paths)
			if !ok || !sameSet(t, got, want) {
				t.Fatalf("from jsonb's order: %s, %v\nwant %s", got, ok, want)
			}
		})
	}
}

// addAllPaths reports whether addPath answers every path in the bytes.
func addAllPaths(fields string, paths [][]string) (string, bool) {
	for _, p := range paths {
		var ok bool
		if fields, ok = addPath(fields, p); !ok {
			return "", false
		}
	}
	return fields, true
}

// reorder writes every object of a JSON value with its members in
// reverse order, as a store that keeps no order may give them back.
func reorder(raw string) string {
	v := gjson.Parse(raw)
	if !v.IsObject() {
		return raw
	}
	var members []string
	v.ForEach(func(k, m gjson.Result) bool {
		members = append([]string{k.Raw + ":" + reorder(m.Raw)}, members...)
		return true
	})
	return "{" + strings.Join(members, ",") + "}"
}

func sameSet(t *testing.T, a, b string) bool {
	t.Helper()
	sa, sb := &fieldpath.Set{}, &fieldpath.Set{}
	if err := sa.FromJSON(strings.NewReader(a)); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := sb.FromJSON(strings.NewReader(b)); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return sa.Equals(sb)
}
