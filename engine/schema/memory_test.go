package schema

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// maxAllocPerBodyByte bounds what Validate allocates, in bytes per byte
// of the object validated, whatever the object holds.
const maxAllocPerBodyByte = 16

// hostileSize is the size of the hostile objects: a twelfth of the
// request limit, for the same bound per byte in less CI time (the limit
// itself is in httpapi's TestHostileRequestMemoryIsBounded); the schema
// library's errors took 440 bytes per byte before thinning.
const hostileSize = 256 << 10

// repeatTo repeats item, comma-separated, to about n bytes.
func repeatTo(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n/(len(item)+1)), ",")
}

// TestValidateMemoryIsBounded: large objects made of many
// wrong values (each would be one error of the schema library) allocate
// a bounded multiple of their size, not hundreds of megabytes. Not
// parallel: it reads the process's allocation counter.
func TestValidateMemoryIsBounded(t *testing.T) {
	tests := []struct {
		name, schema, obj string
		wantCauses        int
	}{
		{"130,000 numbers for strings", spec(`"tags":{"type":"array","items":{"type":"string"}}`),
			`{"spec":{"tags":[` + repeatTo("1", hostileSize) + `]}}`, MaxCauses + 1},
		{"objects with a wrong field", spec(`"ports":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}`),
			`{"spec":{"ports":[` + repeatTo(`{"n":"x"}`, hostileSize) + `]}}`, MaxCauses + 1},
		{"a map of wrong values", spec(`"env":{"type":"object","additionalProperties":{"type":"string"}}`),
			`{"spec":{"env":{` + numberedMembers(hostileSize) + `}}}`, MaxCauses + 1},
		{"valid items then one wrong", spec(`"tags":{"type":"array","items":{"type":"string"}}`),
			`{"spec":{"tags":[` + repeatTo(`"a"`, hostileSize) + `,1]}}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			obj := []byte(tt.obj)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := s.Validate(obj)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %d causes, %d kB allocated (%.1f per byte)", len(obj), len(got), allocated>>10, float64(allocated)/float64(len(obj)))
			if len(got) != tt.wantCauses {
				t.Errorf("%d causes, want %d", len(got), tt.wantCauses)
			}
			if allocated > uint64(maxAllocPerBodyByte*len(obj)) {
				t.Errorf("allocated %d MB for %d bytes, want at most %d per byte", allocated>>20, len(obj), maxAllocPerBodyByte)
			}
		})
	}
}

// numberedMembers is "k0":1,"k1":1,... to about n bytes.
func numberedMembers(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n-16; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	return b.String()
}
