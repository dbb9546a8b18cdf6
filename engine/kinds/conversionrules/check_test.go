package conversionrules

import (
	"os"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// object is a ConversionRules object named name for kind, with v1's toHub.
func object(name, kind, toHub string) []byte {
	return []byte(`{"apiVersion":"dynapi.dev/v1alpha1","kind":"ConversionRules","metadata":{"name":"` + name + `"},
"spec":{"group":"test.example.com","kind":"` + kind + `","hub":"v2","versions":{"v1":{"toHub":` + toHub + `}}}}`)
}

const moved = `[{"move":{"from":"spec.pressureBar","to":"spec.pressure"}}]`

// load loads testdata's kinds and rules file, with rules created through
// the API by name.
func load(t *testing.T, api map[string][]byte) (*registry.Snapshot, []registry.Problem) {
	t.Helper()
	return registry.LoadWith(os.DirFS("testdata/schemas"), os.DirFS("testdata/conversions"),
		registry.LoadOptions{WithoutBuiltins: true, APIConversions: api})
}

func TestCheck(t *testing.T) {
	t.Parallel()
	snap, problems := load(t, nil)
	if len(problems) > 0 {
		t.Fatalf("testdata: %v", problems)
	}
	tests := []struct {
		name        string
		obj         []byte
		path, cause string // the first cause's field and part of its message; "": none
		warning     string // part of the one warning; "": none
	}{
		{"rules that fit", object("gauge.test.example.com", "Gauge", moved), "", "", ""},
		{"a name not the kind's", object("gauges", "Gauge", moved), "metadata.name", "must be gauge.test.example.com", ""},
		{"a field the version lacks", object("gauge.test.example.com", "Gauge", `[{"move":{"from":"spec.nope","to":"spec.pressure"}}]`),
			"spec.versions.v1.toHub[0]", `move: from "spec.nope": v1 has no such field`, ""},
		{"a field lost on the way", object("gauge.test.example.com", "Gauge", `[{"delete":{"path":"spec.pressureBar"}}]`),
			"spec.versions.v1.toHub[0]", "spec.pressureBar", ""},
		{"a kind not served", object("clock.test.example.com", "Clock", moved), "", "", "no kind Clock.test.example.com is served"},
		{"a kind whose rules file wins", object("meter.test.example.com", "Meter", moved), "", "", "the rules file meter.yaml gives the rules"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			causes, warnings := Check(tt.obj, snap)
			switch {
			case tt.path == "" && len(causes) > 0:
				t.Errorf("causes: %+v", causes)
			case tt.path != "" && (len(causes) == 0 || causes[0].Path != tt.path || !strings.Contains(causes[0].Message, tt.cause)):
				t.Errorf("causes: %+v; want the first on %s saying %q", causes, tt.path, tt.cause)
			}
			switch {
			case tt.warning == "" && len(warnings) > 0:
				t.Errorf("warnings: %q", warnings)
			case tt.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.warning)):
				t.Errorf("warnings: %q; want one saying %q", warnings, tt.warning)
			}
		})
	}
}

// The Active condition of each object follows what the registry made of
// its rules.
func TestActiveIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kind, toHub, reason, message string
	}{
		{"gauge.test.example.com", "Gauge", moved, ReasonConverting, "the rules convert Gauge.test.example.com through its hub v2"},
		{"meter.test.example.com", "Meter", moved, ReasonOverriddenByFile, "the rules file meter.yaml, which wins"},
		{"clock.test.example.com", "Clock", moved, ReasonKindNotServed, "no kind Clock.test.example.com is served"},
		{"gauge.test.example.com", "Gauge", `[{"move":{"from":"spec.nope","to":"spec.pressure"}}]`, ReasonRefused, `v1 has no such field`},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			obj := object(tt.name, tt.kind, tt.toHub)
			snap, problems := load(t, map[string][]byte{tt.name: specOf(obj)})
			got := activeIn(snap, problems, tt.name, "test.example.com", tt.kind)
			if got.Reason != tt.reason || !strings.Contains(got.Message, tt.message) || (got.Status == "True") != (tt.reason == ReasonConverting) {
				t.Errorf("Active = %+v; want %s saying %q", got, tt.reason, tt.message)
			}
		})
	}
}
