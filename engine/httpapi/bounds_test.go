package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Bodies are bounded beyond their 3 MiB: JSON nested deeper than 10,000
// levels and YAML whose aliases expand without bound (a billion laughs)
// are refused with 400, quickly.
func TestNestingAndAliasesBounded(t *testing.T) {
	s := newTestServer(t)
	deep := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"d"},"spec":` +
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + "}"
	r := s.do(http.MethodPost, shopWidgets, "application/json", deep)
	wantStatus(t, r, http.StatusBadRequest, "BadRequest")

	var laughs strings.Builder
	laughs.WriteString("apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: l}\nspec:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 12; i++ { // 9^12 strings once expanded
		laughs.WriteString("  b" + string(rune('a'+i)) + ": &" + aliasName(i) + " [" + strings.Repeat(aliasRef(i-1)+", ", 8) + aliasRef(i-1) + "]\n")
	}
	start := time.Now()
	for _, ct := range []string{"application/yaml", "application/apply-patch+yaml"} {
		method, path := http.MethodPost, shopWidgets
		if ct != "application/yaml" {
			method, path = http.MethodPatch, shopWidgets+"/l?fieldManager=m"
		}
		r = s.do(method, path, ct, laughs.String())
		if r.code != http.StatusBadRequest && r.code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s billion laughs: %d %.300s", ct, r.code, r.body)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("billion laughs took %s", d)
	}
}

func aliasName(i int) string { return "x" + strings.Repeat("y", i) }

func aliasRef(i int) string {
	if i == 0 {
		return "*a0"
	}
	return "*" + aliasName(i)
}
