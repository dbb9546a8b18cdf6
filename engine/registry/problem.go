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
}

// String renders "file:line: reason", or "file: reason" when the line is unknown,
// the form editors and CI logs turn into links.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Reason)
}
