package convert

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// benchRules are ten rules of the kinds a real file has, one direction.
const benchRules = `[
      {move: {from: spec.owner, to: spec.maintainer}},
      {move: {from: spec.diameter, to: spec.size.diameter}},
      {move: {from: spec.wall, to: spec.size.wallThickness}},
      {mapValues: {path: spec.material, values: {steel: Steel, copper: Copper, plastic: Plastic}}},
      {wrap: {from: spec.outlet, to: spec.outlets}},
      {split: {from: spec.tags, to: spec.tags, separator: ","}},
      {coerce: {path: spec.pressure, to: integer, from: number}},
      {toAnnotation: {from: spec.notes, key: plumbing.example.com/notes}},
      {set: {path: spec.schemaVersion, value: "2"}},
      {forEach: {path: spec.joints, rules: [{move: {from: type, to: kind}}, {mapValues: {path: kind, values: {elbow: Elbow, tee: Tee}}}]}}]`

// benchObject is an object of about 2 KB, as a client would send it.
var benchObject = []byte(`{"apiVersion":"test.example.com/v1","kind":"Thing","metadata":{"name":"main-line-7",
"namespace":"plumbing","uid":"3f1c6a52-8d0e-4f4b-9a57-0c2a1e4b7d11","resourceVersion":"482913","generation":4,
"creationTimestamp":"2026-01-12T09:30:00Z","labels":{"app.kubernetes.io/name":"pipes","app.kubernetes.io/part-of":"water","tier":"main"},
"annotations":{"example.com/reviewed-by":"platform-team","example.com/ticket":"OPS-4411"}},
"spec":{"owner":"team-water","diameter":120,"wall":4,"material":"steel","outlet":"north-valve-3","tags":"potable,pressurised,buried,insulated",
"pressure":6.5,"notes":"Replaced the north section in 2025 after the frost; check the valves every spring.",
"description":"Main water line feeding the north district, running under the park from the pumping station to the reservoir.",
"joints":[{"type":"elbow","angle":90,"position":12.5},{"type":"tee","angle":0,"position":40},{"type":"elbow","angle":45,"position":77.25},
{"type":"tee","angle":0,"position":120},{"type":"elbow","angle":90,"position":150.75}],
"inspection":{"interval":"P6M","last":"2025-11-02","inspector":"J. Smith","findings":["minor corrosion at joint 3","valve 2 stiff"]},
"flow":{"min":0.5,"max":42.0,"unit":"m3/h"},"location":{"district":"north","street":"Park Avenue","depthMeters":1.8}},
"status":{"phase":"Operating","observedGeneration":4,"conditions":[
{"type":"Ready","status":"True","lastTransitionTime":"2026-01-12T09:31:00Z","reason":"Pressurised","message":"The line holds its pressure."},
{"type":"Inspected","status":"True","lastTransitionTime":"2025-11-02T14:00:00Z","reason":"Passed","message":"Passed the autumn inspection with two findings."}],
"history":[{"at":"2024-03-01T08:00:00Z","event":"Installed","by":"contractor-12"},{"at":"2025-02-11T06:45:00Z","event":"Frost damage","by":"monitoring"},
{"at":"2025-04-20T10:15:00Z","event":"Section replaced","by":"team-water"},{"at":"2025-11-02T14:00:00Z","event":"Inspected","by":"J. Smith"}]}}`)

// BenchmarkConvert converts the 2 KB object one way through the ten rules
// (rules), and the same conversion by decoding into map[string]any,
// converting and encoding (map), the baseline the rules must beat 3x. Run
// with -cpu 1: conversions/s is then what one core does.
func BenchmarkConvert(b *testing.B) {
	r := parseRules(b, v1ToHub(benchRules))
	b.Run("rules", func(b *testing.B) {
		b.SetBytes(int64(len(benchObject)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Convert(benchObject, "v1", "v2"); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "conversions/s")
	})
	b.Run("map", func(b *testing.B) {
		b.SetBytes(int64(len(benchObject)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := convertWithMaps(benchObject); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "conversions/s")
	})
}

// The baseline converts the same way by decoding into maps.
func TestMapBaselineMatches(t *testing.T) {
	t.Parallel()
	if len(benchObject) < 1900 || len(benchObject) > 2300 {
		t.Errorf("the benchmark object has %d bytes, want about 2 KB", len(benchObject))
	}
	want, err := parseRules(t, v1ToHub(benchRules)).Convert(benchObject, "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	got, err := convertWithMaps(benchObject)
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, got, want) // the maps write 42.0 as 42: the same number
}

// convertWithMaps is benchRules written by hand on map[string]any: decode,
// convert, encode.
func convertWithMaps(in []byte) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(in, &obj); err != nil {
		return nil, err
	}
	spec := obj["spec"].(map[string]any)
	mapMove(spec, "owner", spec, "maintainer")
	size := mapChild(spec, "size")
	mapMove(spec, "diameter", size, "diameter")
	mapMove(spec, "wall", size, "wallThickness")
	mapValue(spec, "material", map[string]string{"steel": "Steel", "copper": "Copper", "plastic": "Plastic"})
	if v, ok := spec["outlet"]; ok {
		delete(spec, "outlet")
		spec["outlets"] = []any{v}
	}
	if s, ok := spec["tags"].(string); ok {
		var list []any
		for _, p := range strings.Split(s, ",") {
			list = append(list, p)
		}
		spec["tags"] = list
	}
	if f, ok := spec["pressure"].(float64); ok {
		spec["pressure"] = math.Round(f)
	}
	if v, ok := spec["notes"].(string); ok {
		delete(spec, "notes")
		mapChild(mapChild(obj, "metadata"), "annotations")["plumbing.example.com/notes"] = v
	}
	spec["schemaVersion"] = "2"
	joints, _ := spec["joints"].([]any)
	for _, j := range joints {
		joint := j.(map[string]any)
		mapMove(joint, "type", joint, "kind")
		mapValue(joint, "kind", map[string]string{"elbow": "Elbow", "tee": "Tee"})
	}
	obj["apiVersion"] = "test.example.com/v2"
	return json.Marshal(obj)
}

func mapMove(from map[string]any, fromKey string, to map[string]any, toKey string) {
	if v, ok := from[fromKey]; ok {
		delete(from, fromKey)
		to[toKey] = v
	}
}

func mapChild(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

func mapValue(m map[string]any, key string, values map[string]string) {
	if s, ok := m[key].(string); ok {
		if v, ok := values[s]; ok {
			m[key] = v
		}
	}
}

// BenchmarkRemainder measures what storage adds to a write: the remainder
// of a 2 KB object against its projection, and restoring it.
func BenchmarkRemainder(b *testing.B) {
	r := parseRules(b, v1ToHub(benchRules))
	hub, err := r.Convert(benchObject, "v1", "v2")
	if err != nil {
		b.Fatal(err)
	}
	// v1 drops what it cannot hold: here, everything under inspection.
	prune := func(obj []byte) ([]byte, error) {
		d := newDoc(obj)
		d.remove(newPath([]string{"spec", "inspection"}))
		defer d.release()
		return d.bytes(len(obj)), nil
	}
	projected, err := r.Project(hub, "v2", "v1", prune)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("remainder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Remainder(hub, projected)
		}
	})
	rem := Remainder(hub, projected)
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Restore(projected, rem); err != nil {
				b.Fatal(err)
			}
		}
	})
}
