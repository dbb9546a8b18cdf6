package convert

import (
	"strings"
	"testing"
)

// parseRules parses a rules file for Thing.test.example.com, hub v2, whose
// versions section is given (YAML, indented by two spaces).
func parseRules(t testing.TB, versions string) *Rules {
	t.Helper()
	r, err := Parse([]byte(thingFile(versions)))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return r
}

func thingFile(versions string) string {
	return "group: test.example.com\nkind: Thing\nhub: v2\nversions:\n" + versions
}

// v1ToHub is the versions section of a file whose v1 has the toHub rules
// given as a YAML flow list.
func v1ToHub(rules string) string { return "  v1:\n    toHub: " + rules + "\n" }

// thing builds a Thing object of version from the members after kind.
func thing(version, members string) []byte {
	s := `{"apiVersion":"test.example.com/` + version + `","kind":"Thing"`
	if strings.TrimSpace(members) != "" {
		s += "," + members
	}
	return []byte(s + "}")
}
