package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/tidwall/sjson"
)

const (
	pipesV1 = "/apis/plumbing.example.com/v1/namespaces/default/pipes"
	pipesV2 = "/apis/plumbing.example.com/v2/namespaces/default/pipes"
	pipesV3 = "/apis/plumbing.example.com/v3/namespaces/default/pipes"
)

// wantFields checks gjson paths of r against their expected raw JSON values.
func wantFields(t *testing.T, r response, want map[string]string) {
	t.Helper()
	for path, raw := range want {
		if got := r.get(path).Raw; got != raw {
			t.Errorf("%s = %s, want %s\n%s", path, got, raw, r)
		}
	}
}

// TestConversionRoundTrip is docs/conversion.md's walk-through: create in v1, read in v2,
// update in v2 with what v1 cannot hold, read and update in v1, read in v2:
// nothing is lost.
func TestConversionRoundTrip(t *testing.T) {
	s := newTestServer(t)
	s.create(pipesV1, `{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"main"},
		"spec":{"owner":"team-water","diameter":120,"material":"steel","outlet":"north","tags":"potable,buried","pressure":6}}`)

	v2 := s.mustDo(http.StatusOK, http.MethodGet, pipesV2+"/main", "", "")
	wantFields(t, v2, map[string]string{
		"apiVersion": `"plumbing.example.com/v2"`, "spec.maintainer": `"team-water"`, "spec.size.diameter": "120",
		"spec.material": `"Steel"`, "spec.outlets": `["north"]`, "spec.tags": `["potable","buried"]`, "spec.pressure": "6",
	})

	body, _ := sjson.Set(v2.String(), "spec.size.wallThickness", 3.5)
	body, _ = sjson.Set(body, "spec.insulation", "Foam")
	body, _ = sjson.SetRaw(body, "spec.outlets", `["north","south"]`)
	body, _ = sjson.Set(body, "spec.pressure", 6.5)
	s.mustDo(http.StatusOK, http.MethodPut, pipesV2+"/main", "application/json", body)

	v1 := s.mustDo(http.StatusOK, http.MethodGet, pipesV1+"/main", "", "")
	wantFields(t, v1, map[string]string{
		"apiVersion": `"plumbing.example.com/v1"`, "spec.owner": `"team-water"`, "spec.diameter": "120",
		"spec.material": `"steel"`, "spec.outlet": `"north"`, "spec.tags": `"potable,buried"`, "spec.pressure": "7",
	})
	if v1.get("spec.insulation").Exists() || v1.get("spec.outlets").Exists() || v1.get("spec.size").Exists() {
		t.Fatalf("v1 shows fields it does not have: %s", v1)
	}

	edited, _ := sjson.Set(v1.String(), "spec.owner", "team-gas")
	s.mustDo(http.StatusOK, http.MethodPut, pipesV1+"/main", "application/json", edited)

	back := s.mustDo(http.StatusOK, http.MethodGet, pipesV2+"/main", "", "")
	wantFields(t, back, map[string]string{
		"spec.maintainer": `"team-gas"`, "spec.size.wallThickness": "3.5", "spec.insulation": `"Foam"`,
		"spec.outlets": `["north","south"]`, "spec.pressure": "6.5",
	})
}

func TestConversionFieldOnlyTheNewestVersionHas(t *testing.T) {
	s := newTestServer(t)
	s.create(pipesV3, `{"apiVersion":"plumbing.example.com/v3","kind":"Pipe","metadata":{"name":"n"},
		"spec":{"dimensions":{"diameter":50,"wall":2},"material":"Copper","notes":"laid in 1998"}}`)
	v3 := s.mustDo(http.StatusOK, http.MethodGet, pipesV3+"/n", "", "")
	wantFields(t, v3, map[string]string{"spec.notes": `"laid in 1998"`, "spec.dimensions.wall": "2"})
	if v3.get(`metadata.annotations.plumbing\.example\.com/notes`).Exists() {
		t.Fatalf("v3 shows the hub's annotation: %s", v3)
	}
	v1 := s.mustDo(http.StatusOK, http.MethodGet, pipesV1+"/n", "", "")
	s.mustDo(http.StatusOK, http.MethodPatch, pipesV1+"/n", "application/merge-patch+json", `{"spec":{"owner":"ops"}}`)
	if v1.get("spec.notes").Exists() {
		t.Fatalf("v1 shows notes: %s", v1)
	}
	again := s.mustDo(http.StatusOK, http.MethodGet, pipesV3+"/n", "", "")
	wantFields(t, again, map[string]string{"spec.notes": `"laid in 1998"`, "spec.maintainer": `"ops"`, "spec.dimensions.wall": "2"})
}

func TestConversionListAndWatchInEveryVersion(t *testing.T) {
	s := newTestServer(t)
	watches := map[string]*watchStream{}
	for _, base := range []string{pipesV1, pipesV2, pipesV3} {
		watches[base] = s.watch(base + "?watch=true")
	}
	s.create(pipesV2, `{"apiVersion":"plumbing.example.com/v2","kind":"Pipe","metadata":{"name":"p"},
		"spec":{"size":{"diameter":80},"material":"Plastic","outlets":["a"]}}`)
	want := map[string]string{pipesV1: `"plastic"`, pipesV2: `"Plastic"`, pipesV3: `"Plastic"`}
	for base, w := range watches {
		ev := w.expect("ADDED", "p")
		if got := ev.Get("object.spec.material").Raw; got != want[base] {
			t.Errorf("watch %s: material %s, want %s", base, got, want[base])
		}
		list := s.mustDo(http.StatusOK, http.MethodGet, base, "", "")
		if got := list.get("items.0.spec.material").Raw; got != want[base] {
			t.Errorf("list %s: material %s, want %s", base, got, want[base])
		}
	}
	s.mustDo(http.StatusOK, http.MethodPatch, pipesV1+"/p", "application/merge-patch+json", `{"spec":{"diameter":90}}`)
	if ev := watches[pipesV3].expect("MODIFIED", "p"); ev.Get("object.spec.dimensions.diameter").Int() != 90 {
		t.Fatalf("v3 watch after a v1 patch: %s", ev.Raw)
	}
}

func TestConversionValidatesInTheRequestVersion(t *testing.T) {
	s := newTestServer(t)
	r := s.do(http.MethodPost, pipesV1, "application/json", `{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"bad"},
		"spec":{"diameter":120,"material":"Steel","tags":",,"}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	var fields []string
	for _, f := range r.get("details.causes.#.field").Array() {
		fields = append(fields, f.String())
	}
	if len(fields) != 2 || fields[0] != "spec.material" || fields[1] != "spec.tags" {
		t.Fatalf("causes: %v", fields)
	}
}
