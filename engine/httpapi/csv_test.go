package httpapi_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

func readCSV(t *testing.T, text string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, text)
	}
	return rows
}

func TestCSV(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("c1", `{"size":4,"color":"blue"}`))
	s.create(widgets, widget("c2", `{"size":5,"color":"red"}`))
	r := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "", "Accept", "text/csv")
	if ct := r.header.Get("Content-Type"); ct != "text/csv; charset=utf-8; header=present" {
		t.Errorf("Content-Type = %q", ct)
	}
	rows := readCSV(t, r.String())
	if len(rows) != 3 || strings.Join(rows[0], "|") != "Name|Color|Size|Age" ||
		strings.Join(rows[2][:3], "|") != "c2|red|5" || strings.Join(rows[1][:3], "|") != "c1|blue|4" || rows[1][3] == "" {
		t.Fatalf("list: %q", rows)
	}
	one := readCSV(t, s.mustDo(http.StatusOK, http.MethodGet, widgets+"/c1", "", "", "Accept", "text/csv").String())
	if len(one) != 2 || one[1][0] != "c1" {
		t.Fatalf("get: %q", one)
	}

	w := s.watch(widgets+"?watch=true", "Accept", "text/csv")
	for _, want := range []string{"Type,Name,Color,Size,Age", "ADDED,c1,blue,4,", "ADDED,c2,red,5,"} {
		if line := <-w.lines; !strings.HasPrefix(line, want) {
			t.Fatalf("watch line %q, want %q...", line, want)
		}
	}
	s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/c1", "", "")
	if line := <-w.lines; !strings.HasPrefix(line, "DELETED,c1,blue,4,") {
		t.Fatalf("watch line %q", line)
	}
	// RFC 4180 quoting.
	s.create(labsWidgets, `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"q"},"spec":{"port":80,"color":"say \"hi\", then\nbye"}}`)
	q := readCSV(t, s.mustDo(http.StatusOK, http.MethodGet, labsWidgets, "", "", "Accept", "text/csv").String())
	if len(q) != 2 || strings.Join(q[0], "|") != "Name|Color|Port|Ready|Age" || q[1][1] != "say \"hi\", then\nbye" || q[1][2] != "80" || q[1][3] != "" {
		t.Fatalf("quoted: %q", q)
	}
	// A write asking for CSV gets JSON.
	if r := s.create(widgets, widget("c3", `{"size":1}`)); r.get("kind").String() != "Widget" {
		t.Fatalf("create: %s", r)
	}
}
