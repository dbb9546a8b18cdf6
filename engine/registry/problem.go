package registry

import "fmt"

// Problem is one reason a definition or rules file, or a document in it,
// was not loaded. Load reports every Problem it finds and loads everything else.
type Problem struct {
	File   string // the path within the fs.FS given to Load it was found in
	Line   int    // 1-based; 0 when unknown
	Reason string
	// Conversion is true when File is a conversion rules file, a path in
	// Load's conversions fs.FS; false for a definition file, in schemas.
	Conversion bool
	// Warning is true when nothing was refused: rules for a kind that is
	// not loaded, which may well be defined in another schemas folder, or
	// a conversions folder that does not exist (no rules). It is told, as
	// a problem is, but it is no failure of the load (see Failures).
	Warning bool
}

// Failures counts the problems that are not warnings.
func Failures(problems []Problem) int {
	n := 0
	for _, p := range problems {
		if !p.Warning {
			n++
		}
	}
	return n
}

// String renders "file:line: reason", or "file: reason" when the line is unknown,
// the form editors and CI logs turn into links.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Reason)
}
