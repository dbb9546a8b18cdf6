package httpapi_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
)

// Every page with a continue token says exactly how many objects follow,
// at the list's resourceVersion, whatever is written meanwhile.
func TestRemainingItemCount(t *testing.T) {
	s := newTestServer(t)
	for i := range 7 {
		s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"r`+strconv.Itoa(i)+
			`","labels":{"odd":"`+strconv.FormatBool(i%2 == 1)+`"}},"spec":{"size":1}}`)
	}
	walk := func(query string, want ...int64) {
		t.Helper()
		token := ""
		for i, w := range append(want, -1) {
			q, _ := url.ParseQuery(query)
			q.Set("limit", "2")
			if token != "" {
				q.Set("continue", token)
			}
			page := s.mustDo(http.StatusOK, http.MethodGet, widgets+"?"+q.Encode(), "", "")
			token = page.get("metadata.continue").String()
			left := page.get("metadata.remainingItemCount")
			if w == -1 {
				if token != "" || left.Exists() {
					t.Fatalf("%s: last page %d: %s", query, i, page.get("metadata").Raw)
				}
				return
			}
			if token == "" || left.Int() != w || !left.Exists() {
				t.Fatalf("%s: page %d: remainingItemCount %s, want %d: %s", query, i, left.Raw, w, page.get("metadata").Raw)
			}
			if i == 0 { // a write after the first page changes nothing in this list
				s.create(widgets, widget("late"+strconv.Itoa(len(query)), `{"size":1}`))
			}
		}
	}
	walk("", 5, 3, 1)
	walk("labelSelector=odd%3Dtrue", 1)
	// Metadata-only lists and Tables count the same way.
	r := s.mustDo(http.StatusOK, http.MethodGet, widgets+"?limit=3", "", "", "Accept", acceptMetaList)
	if r.get("metadata.remainingItemCount").Int() != 6 { // 7 + late0 + late18 - 3
		t.Fatalf("metadata-only: %s", r.get("metadata").Raw)
	}
}
