package apply

import (
	"strings"

	"github.com/tidwall/gjson"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// addFields is a fieldsV1 set (JSON) with paths added, each a path of
// field names, serialized as structured-merge-diff serializes sets: the
// node itself as "." first, then its members by name. It inserts into the
// bytes where it can (names that need no escape, among members named by
// field, the updates of labels, annotations and plain fields), and leaves
// the rest to structured-merge-diff's own set, as before.
// TestAddFieldsMatchesStructuredMergeDiff holds the two to one answer.
func addFields(fields string, paths [][]string) (string, bool) {
	out := fields
	for _, p := range paths {
		var ok bool
		if out, ok = addPath(out, p); !ok {
			return addFieldsSet(fields, paths)
		}
	}
	return out, true
}

// addPath is the set node (a JSON object) with path added as a member;
// false for what it leaves to structured-merge-diff.
func addPath(node string, path []string) (string, bool) {
	if len(quote(path[0])) != len(path[0])+2 {
		return "", false // a name that needs escaping
	}
	key := "f:" + path[0]
	var found gjson.Result
	before, ok := -1, true
	gjson.Parse(node).ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == ".":
		case !strings.HasPrefix(k.Str, "f:"):
			ok = false // a list's key, value or index: not a name
		case k.Str == key:
			found = v
		case k.Str > key && before < 0:
			before = k.Index
		}
		return ok && !found.Exists()
	})
	switch {
	case !ok:
		return "", false
	case found.Exists() && !found.IsObject():
		return "", false
	case found.Exists():
		sub, ok := addBelow(found.Raw, path[1:])
		return node[:found.Index] + sub + node[found.Index+len(found.Raw):], ok
	}
	member := "{}"
	if len(path) > 1 {
		if member, ok = addPath("{}", path[1:]); !ok {
			return "", false
		}
	}
	member = `"` + key + `":` + member
	if before >= 0 {
		return node[:before] + member + "," + node[before:], true
	}
	end := strings.LastIndexByte(node, '}')
	if strings.TrimSpace(node[1:end]) == "" {
		return "{" + member + "}", true
	}
	return node[:end] + "," + member + "}", true
}

// addBelow is an existing node of a set with rest added beneath it, or
// the node itself made a member when rest is empty. A node without
// members ({}) is a member already: below it, it becomes {".":{},...}.
func addBelow(node string, rest []string) (string, bool) {
	leaf := isEmptyObject(node)
	if len(rest) == 0 {
		if leaf || gjson.Get(node, `\.`).Exists() {
			return node, true
		}
		return `{".":{},` + strings.TrimSpace(node)[1:], true
	}
	sub, ok := addPath(node, rest)
	if !ok || !leaf {
		return sub, ok
	}
	return `{".":{},` + sub[1:], true
}

func isEmptyObject(raw string) bool {
	raw = strings.TrimSpace(raw)
	return len(raw) >= 2 && raw[0] == '{' && strings.TrimSpace(raw[1:len(raw)-1]) == ""
}

// addFieldsSet is addFields through structured-merge-diff's set.
func addFieldsSet(fields string, paths [][]string) (string, bool) {
	set := &fieldpath.Set{}
	if err := set.FromJSON(strings.NewReader(fields)); err != nil {
		return "", false
	}
	for _, p := range paths {
		parts := make([]any, len(p))
		for i, k := range p {
			parts[i] = k
		}
		fp, err := fieldpath.MakePath(parts...)
		if err != nil {
			return "", false
		}
		set.Insert(fp)
	}
	out, err := set.ToJSON()
	return string(out), err == nil
}
