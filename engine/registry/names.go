package registry

import (
	"fmt"
	"strings"
)

// nameIndex remembers, per group, which resource claimed each name, so that
// kubectl can always tell resources apart: `kubectl get X` resolves X among
// the plural, singular, short names and kind of every resource of a group.
// Names are compared in lower case because kubectl matches kinds that way.
type nameIndex map[string]map[string]claim

// claim is one name held by a resource, and which of its names it is.
type claim struct {
	res   *Resource
	field string
	value string
}

// claims lists a resource's names, the plural first so that a second
// definition of the same resource is reported as such.
func (r *Resource) claims() []claim {
	cs := []claim{
		{r, "plural", r.Plural}, {r, "singular", r.Singular},
		{r, "kind", r.Kind}, {r, "listKind", r.ListKind},
	}
	for _, s := range r.ShortNames {
		cs = append(cs, claim{r, "shortName", s})
	}
	return cs
}

// add registers r's names, or returns why it cannot: a name of r is already
// held by a resource loaded before it. The first definition wins, so the
// outcome depends only on the order of the files.
func (ix nameIndex) add(r *Resource) []string {
	names := ix[r.Group]
	if prev, ok := names[r.Plural]; ok && prev.field == "plural" {
		return []string{fmt.Sprintf("resource %s is already defined in %s%s", r.GroupResource(), prev.res.File, precedence(r, prev.res))}
	}
	var failed reasons
	for _, c := range r.claims() {
		if c.value == "" { // a review has no listKind
			continue
		}
		if prev, ok := names[strings.ToLower(c.value)]; ok {
			failed.addf("%s %q collides with the %s %q of %s (defined in %s)%s",
				c.field, c.value, prev.field, prev.value, prev.res.GroupResource(), prev.res.File, precedence(r, prev.res))
		}
	}
	if len(failed) > 0 {
		return failed
	}
	if names == nil {
		names = map[string]claim{}
		ix[r.Group] = names
	}
	for _, c := range r.claims() {
		key := strings.ToLower(c.value)
		if _, taken := names[key]; !taken && key != "" { // a resource's singular and kind are usually the same word
			names[key] = c
		}
	}
	return nil
}

// precedence explains why a definition lost a name to a built-in one, or
// one created through the API to a definition file, which is not about
// the order of files.
func precedence(r, holder *Resource) string {
	if holder.File == ReviewsFile {
		return "; the server answers this review itself, whatever the definitions say"
	}
	if IsBuiltinFile(holder.File) {
		return "; a built-in kind's names cannot be taken by another definition " +
			"(the built-in is served whatever --schemas names; --runtime-config only switches it off)"
	}
	if IsAPIFile(r.File) && !IsAPIFile(holder.File) {
		return "; definition files take precedence over definitions created through the API"
	}
	return ""
}

// remove gives up every name r holds.
func (ix nameIndex) remove(r *Resource) {
	for key, c := range ix[r.Group] {
		if c.res == r {
			delete(ix[r.Group], key)
		}
	}
}
