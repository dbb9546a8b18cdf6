package convert

import "strings"

// Problem is one reason a rules file is refused.
type Problem struct {
	// Where names the place in the file: "versions.v1.toHub[2]",
	// "versions.v1.toHub[4].forEach.rules[0]", "hub"; "" for the whole file.
	Where  string
	Reason string
}

// String renders "where: reason".
func (p Problem) String() string {
	if p.Where == "" {
		return p.Reason
	}
	return p.Where + ": " + p.Reason
}

// Problems is every problem of a rules file, in file order. Parse and Bind
// return it as their error, so that a user fixing a file sees all at once.
type Problems []Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (ps *Problems) add(where, reason string) {
	*ps = append(*ps, Problem{Where: where, Reason: reason})
}

// err returns the problems as an error, or nil when there are none.
func (ps Problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}
