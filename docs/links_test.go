package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks: every relative link of the READMEs, CONTRIBUTING.md and the
// pages here names a file that exists and, with a #fragment into a
// Markdown file, one of its headings, so that moving a section cannot
// leave a link behind.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md", "../CONTRIBUTING.md", "../conversions/README.md")
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			if problem := checkLink(page, m[1]); problem != "" {
				t.Errorf("%s: link %s: %s", page, m[1], problem)
			}
		}
	}
}

// checkLink returns what is wrong with target, a link of page, or "".
func checkLink(page, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, fragment, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.Join(filepath.Dir(page), path)
	}
	if _, err := os.Stat(file); err != nil {
		return "no such file"
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !headings(string(text))[fragment] {
		return "no such heading in " + file
	}
	return ""
}

// headings returns the anchors GitHub makes of a page's headings (code
// blocks left out).
func headings(text string) map[string]bool {
	anchors := map[string]bool{}
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		anchors[anchor(title)] = true
	}
	return anchors
}

// anchor is GitHub's anchor of a heading: lower case, letters, digits,
// hyphens and underscores kept, spaces made hyphens, the rest dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
