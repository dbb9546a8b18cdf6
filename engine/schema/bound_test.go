package schema

import (
	"strings"
	"testing"
	"time"
)

// TestValidateStopsAtMaxCauses: a list of wrong items costs MaxCauses
// causes and a note, in time linear in the list, not one cause (and one
// walk of the object) per item.
func TestValidateStopsAtMaxCauses(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, spec(`"tags":{"type":"array","items":{"type":"string"}}`))
	for _, n := range []int{MaxCauses + 1, 40000} {
		obj := `{"spec":{"tags":[` + strings.TrimSuffix(strings.Repeat("1,", n), ",") + `]}}`
		start := time.Now()
		got := s.Validate([]byte(obj))
		took := time.Since(start)
		if len(got) != MaxCauses+1 || !strings.Contains(got[MaxCauses].Message, "too many errors") {
			t.Fatalf("%d items: %d causes, last %+v", n, len(got), got[len(got)-1])
		}
		t.Logf("%d wrong items: %v", n, took)
	}
}
