package apply

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestEntryUpdated: the time and the field set of an entry are replaced
// where they lie, in either order, and nothing else of it changes.
func TestEntryUpdated(t *testing.T) {
	const now = "2030-01-02T03:04:05Z"
	added := [][]string{{"metadata", "annotations", "a"}}
	tests := []struct {
		name, entry string
		added       [][]string
		want        string
	}{
		{"time only", `{"apiVersion":"v1","fieldsV1":{"f:spec":{}},"manager":"m","time":"2020-01-01T00:00:00Z"}`, nil,
			`{"apiVersion":"v1","fieldsV1":{"f:spec":{}},"manager":"m","time":"` + now + `"}`},
		{"fields before the time", `{"fieldsV1":{"f:spec":{}},"manager":"m","time":"2020-01-01T00:00:00Z"}`, added,
			`{"fieldsV1":{"f:metadata":{"f:annotations":{"f:a":{}}},"f:spec":{}},"manager":"m","time":"` + now + `"}`},
		{"time before the fields (jsonb's order)", `{"time":"2020-01-01T00:00:00Z","manager":"m","fieldsV1":{"f:spec":{}}}`, added,
			`{"time":"` + now + `","manager":"m","fieldsV1":{"f:metadata":{"f:annotations":{"f:a":{}}},"f:spec":{}}}`},
		{"no time", `{"fieldsV1":{"f:spec":{}},"manager":"m"}`, nil,
			`{"fieldsV1":{"f:spec":{}},"manager":"m","time":"` + now + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := readEntries(gjson.Parse("[" + tt.entry + "]"))
			if len(e) != 1 || e[0].manager != "m" {
				t.Fatalf("read %+v", e)
			}
			got, ok := e[0].updated(tt.added, now)
			if !ok || got != tt.want {
				t.Fatalf("updated = %s, %v\nwant %s", got, ok, tt.want)
			}
		})
	}
}
