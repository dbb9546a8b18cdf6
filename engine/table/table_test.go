package table

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// tableCase is one file of testdata/cases: a Builder's inputs, the objects
// (names of testdata/objects files) and the Table it must write.
type tableCase struct {
	APIVersion    string                   `json:"apiVersion"`
	IncludeObject string                   `json:"includeObject"`
	Now           time.Time                `json:"now"`
	Columns       []registry.PrinterColumn `json:"columns"`
	Objects       []string                 `json:"objects"`
	List          bool                     `json:"list"` // streamed as a list; otherwise Single(objects[0])
	ListMeta      json.RawMessage          `json:"listMeta"`
	Want          json.RawMessage          `json:"want"`
}

func TestTables(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/cases/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			var tc tableCase
			readJSON(t, file, &tc)
			b, err := New(tc.Columns, tc.APIVersion, tc.IncludeObject, tc.Now)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			var got []byte
			if tc.List {
				got = b.AppendHeader(nil)
				for i, name := range tc.Objects {
					if i > 0 {
						got = append(got, ',')
					}
					got = b.AppendRow(got, readObject(t, name))
				}
				got = b.AppendFooter(got, tc.ListMeta)
			} else {
				got = b.Single(readObject(t, tc.Objects[0]))
			}
			jsoneq.Assert(t, got, tc.Want)
		})
	}
}

func readObject(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "objects", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.Bytes()
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
