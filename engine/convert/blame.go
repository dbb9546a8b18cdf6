package convert

// RulesAt lists the rules of version's conversions (toHub, then fromHub)
// that read or write the field at keys (object keys from the root, list
// indexes left out), each as "where: rule" ("versions.v1.toHub[2]: move
// {from: spec.diameter, to: spec.size.diameter}"), so that a failed check
// can name the rules at fault. It returns nil when no rule touches the
// field, and for a nil Rules.
func (r *Rules) RulesAt(version string, keys []string) []string {
	if r == nil || r.versions[version] == nil {
		return nil
	}
	v := r.versions[version]
	var out []string
	for _, list := range [][]step{v.toHub, v.fromHub} {
		out = appendRulesAt(out, list, keys)
	}
	return out
}

func appendRulesAt(out []string, steps []step, keys []string) []string {
	field := path{keys: keys}
	for _, s := range steps {
		if fe, ok := s.rule.(forEach); ok && hasPrefix(keys, fe.path.keys) && len(keys) > len(fe.path.keys) {
			out = appendRulesAt(out, fe.steps, keys[len(fe.path.keys):])
		}
		for _, u := range s.rule.uses() {
			if !u.p.isRoot() && u.p.overlaps(field) {
				out = append(out, s.where+": "+s.rule.String())
				break
			}
		}
	}
	return out
}
