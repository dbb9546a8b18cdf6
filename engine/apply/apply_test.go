package apply

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

const widgetSchema = `{"type":"object","properties":{
 "spec":{"type":"object","properties":{
  "replicas":{"type":"integer"},"color":{"type":"string"},"size":{"type":"integer"},
  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
   "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
  "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
  "args":{"type":"array","items":{"type":"string"}}}},
 "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}`

func testKind() *Kind {
	return NewKind(Spec{Group: "example.com", Kind: "Widget",
		Versions: []Version{{Name: "v1", Schema: []byte(widgetSchema), Status: true}},
		Convert:  func(obj []byte, _, _ string) ([]byte, error) { return obj, nil }})
}

func TestApplyConflictAndForce(t *testing.T) {
	k := testKind()
	a := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":1,"ports":[{"name":"http","port":80}]}}`
	obj, err := k.Apply("v1", "", nil, []byte(a), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	mf := gjson.GetBytes(obj, "metadata.managedFields")
	if n := len(mf.Array()); n != 1 || mf.Get("0.manager").Str != "alice" || mf.Get("0.operation").Str != "Apply" {
		t.Fatalf("managedFields = %s", mf.Raw)
	}
	if !mf.Get(`0.fieldsV1.f:spec.f:ports.k:{"name":"http"}`).Exists() {
		t.Fatalf("list-map key missing: %s", mf.Raw)
	}
	b := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":2,"ports":[{"name":"https","port":443}]}}`
	_, err = k.Apply("v1", "", obj, []byte(b), "bob", false)
	e, ok := err.(*engine.Error)
	if !ok || e.Code != engine.CodeConflict || len(e.Causes) != 1 || e.Causes[0].Path != ".spec.replicas" ||
		!strings.Contains(e.Causes[0].Message, `"alice"`) {
		t.Fatalf("err = %#v", err)
	}
	merged, err := k.Apply("v1", "", obj, []byte(b), "bob", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(merged, "spec.ports.#.name").Raw; got != `["http","https"]` {
		t.Fatalf("ports = %s", got)
	}
	if gjson.GetBytes(merged, "spec.replicas").Int() != 2 {
		t.Fatalf("replicas: %s", merged)
	}
}

func TestUpdateRecordsChangedFields(t *testing.T) {
	k := testKind()
	created := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":1}}`)
	mf, err := k.Update("v1", "", nil, nil, created, nil, "creator")
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(mf)
	if r.Get("0.manager").Str != "creator" || r.Get("0.operation").Str != "Update" || !r.Get("0.fieldsV1.f:spec.f:replicas").Exists() {
		t.Fatalf("managedFields = %s", mf)
	}
	live := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","managedFields":` + string(mf) + `},"spec":{"replicas":1}}`)
	upd := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":1,"color":"red"}}`)
	mf2, err := k.Update("v1", "", live, ManagedFieldsOf(live), upd, nil, "painter")
	if err != nil {
		t.Fatal(err)
	}
	r = gjson.ParseBytes(mf2)
	if len(r.Array()) != 2 || r.Get("1.manager").Str != "painter" || !r.Get("1.fieldsV1.f:spec.f:color").Exists() {
		t.Fatalf("managedFields = %s", mf2)
	}
	if mf3, err := k.Update("v1", "", live, ManagedFieldsOf(live), live, []byte(`[]`), "x"); err != nil || mf3 != nil {
		t.Fatalf("reset: %s %v", mf3, err)
	}
}

// TestFastUpdateMatchesFieldManager: where the update shortcut answers,
// it answers what kube-apiserver's FieldManager gives, but for the time;
// everywhere else it leaves the answer to the FieldManager.
func TestFastUpdateMatchesFieldManager(t *testing.T) {
	plain := NewKind(Spec{Group: "example.com", Kind: "Widget",
		Versions: []Version{{Name: "v1", Schema: []byte(plainWidgetSchema), Status: true}},
		Convert:  func(obj []byte, _, _ string) ([]byte, error) { return obj, nil }})
	obj := func(replicas, color, extra string) []byte {
		return []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"1"}},"spec":{"replicas":` +
			replicas + `,"color":"` + color + `"` + extra + `}}`)
	}
	// alice created the object, bob added tags; tags is a set in testKind,
	// an atomic list in plain.
	history := func(k *Kind) []byte {
		var live []byte // none yet: alice creates
		for _, step := range []struct {
			obj     []byte
			manager string
		}{{obj("1", "red", ""), "alice"}, {obj("1", "red", `,"tags":["x"]`), "bob"}} {
			mf, err := k.Update("v1", "", live, ManagedFieldsOf(live), step.obj, nil, step.manager)
			if err != nil {
				t.Fatal(err)
			}
			if live, err = WithManagedFields(step.obj, mf); err != nil {
				t.Fatal(err)
			}
		}
		return live
	}
	withLabel := func(label string) []byte {
		return []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"a":"1"`, `"a":"1",`+label, 1))
	}
	tests := []struct {
		name    string
		kind    *Kind
		obj     []byte
		sent    string
		manager string
		fast    bool
	}{
		{"owned scalar", testKind(), obj("2", "red", `,"tags":["x"]`), "", "alice", true},
		{"unchanged", testKind(), obj("1", "red", `,"tags":["x"]`), "", "carol", true},
		{"not owned", testKind(), obj("2", "red", `,"tags":["x"]`), "", "bob", false},
		{"added list", testKind(), obj("2", "red", `,"tags":["x"],"args":["y"]`), "", "alice", false},
		{"list changed", testKind(), obj("1", "red", `,"tags":["z"]`), "", "bob", false},
		{"added label", testKind(), withLabel(`"b":"2"`), "", "alice", true},
		{"added label and owned scalar", testKind(), []byte(strings.Replace(string(withLabel(`"b":"2"`)), `"replicas":1`, `"replicas":3`, 1)), "", "alice", true},
		{"added label, no entry of its manager", testKind(), withLabel(`"b":"2"`), "", "carol", false},
		{"added label, object value", testKind(), withLabel(`"b":{}`), "", "alice", false},
		{"added annotations", testKind(), []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"labels"`, `"annotations":{"n":"1","m":"2"},"labels"`, 1)), "", "alice", true},
		{"added object, plain schema", plain, []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"color":"red"`, `"color":"red","nested":{"a":{"b":1}}`, 1)), "", "alice", true},
		{"added list, plain schema", plain, []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"color":"red"`, `"color":"red","items":[]`, 1)), "", "alice", false},
		{"removed label", testKind(), []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"labels":{"a":"1"}`, `"labels":{}`, 1)), "", "alice", false},
		{"added field, schema with a set", testKind(), obj("1", "red", `,"tags":["x"],"size":3`), "", "alice", false},
		{"added field, plain schema", plain, []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `"color":"red"`, `"color":"red","ios":"5%"`, 1)), "", "alice", true},
		{"added field in status, plain schema", plain, []byte(strings.Replace(string(obj("1", "red", `,"tags":["x"]`)), `}}`, `},"status":{}}`, 1)), "", "alice", false},
		{"managedFields sent as read", testKind(), obj("2", "red", `,"tags":["x"]`), "live", "alice", true},
		{"managedFields sent changed", testKind(), obj("2", "red", `,"tags":["x"]`), "[]", "alice", false},
		{"managedFields sent as read, keys in another order", testKind(), obj("2", "red", `,"tags":["x"]`), "reordered", "alice", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := history(tt.kind)
			var sent []byte
			switch tt.sent {
			case "live":
				sent = []byte(gjson.GetBytes(live, "metadata.managedFields").Raw)
			case "reordered": // as client-go or jsonb would give them back
				var entries []string
				for _, e := range gjson.GetBytes(live, "metadata.managedFields").Array() {
					entries = append(entries, reorder(e.Raw))
				}
				sent = []byte("[" + strings.Join(entries, ",") + "]")
				if string(sent) == gjson.GetBytes(live, "metadata.managedFields").Raw {
					t.Fatal("reordered managedFields are the same bytes")
				}
			case "":
			default:
				sent = []byte(tt.sent)
			}
			now := time.Now()
			fast, ok, _ := tt.kind.fastUpdate("v1", "example.com/v1", "", live, ManagedFieldsOf(live), tt.obj, sent, tt.manager, now)
			if ok != tt.fast {
				t.Fatalf("fast path taken: %v, want %v", ok, tt.fast)
			}
			fm, err := tt.kind.manager("v1", "")
			if err != nil {
				t.Fatal(err)
			}
			withSent, err := WithManagedFields(tt.obj, sent)
			if err != nil {
				t.Fatal(err)
			}
			full, err := tt.kind.fullUpdate(fm, "v1", live, withSent, tt.manager)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return
			}
			if stripTimes(fast) != stripTimes(full) && !(crossedSecond(full, now) && sortedStripped(fast) == sortedStripped(full)) {
				t.Fatalf("fast %s\nfull %s", fast, full)
			}
			reordered, err := WithManagedFields(live, []byte(reorder(gjson.GetBytes(live, "metadata.managedFields").Raw)))
			if err != nil {
				t.Fatal(err)
			}
			if fast, ok, _ = tt.kind.fastUpdate("v1", "example.com/v1", "", reordered, ManagedFieldsOf(reordered), tt.obj, nil, tt.manager, now); !ok || !sameEntries(t, fast, full, crossedSecond(full, now)) {
				t.Fatalf("from jsonb's order (%v): fast %s\nfull %s", ok, fast, full)
			}
		})
	}
}

// sameEntries reports whether two managedFields lists hold the same
// entries in the same order (in any order with anyOrder), their field
// sets equal in any order.
func sameEntries(t *testing.T, a, b []byte, anyOrder bool) bool {
	t.Helper()
	ea, eb := gjson.ParseBytes(a).Array(), gjson.ParseBytes(b).Array()
	if len(ea) != len(eb) {
		return false
	}
	if anyOrder {
		byManager := func(x, y gjson.Result) int {
			return strings.Compare(x.Get("manager").Str+"/"+x.Get("operation").Str, y.Get("manager").Str+"/"+y.Get("operation").Str)
		}
		slices.SortFunc(ea, byManager)
		slices.SortFunc(eb, byManager)
	}
	for i := range ea {
		for _, k := range []string{"manager", "operation", "apiVersion", "fieldsType"} {
			if ea[i].Get(k).Str != eb[i].Get(k).Str {
				return false
			}
		}
		if !sameSet(t, ea[i].Get("fieldsV1").Raw, eb[i].Get("fieldsV1").Raw) {
			return false
		}
	}
	return true
}

// TestFastUpdateAcrossVersions: a field another manager owns through
// another version (under another name) is not the updater's alone, so
// the shortcut leaves it to the FieldManager, which takes it over.
func TestFastUpdateAcrossVersions(t *testing.T) {
	k := renamingKind()
	v2 := func(maintainer string) []byte {
		return []byte(`{"apiVersion":"example.com/v2","kind":"Pipe","metadata":{"name":"p"},"spec":{"maintainer":"` + maintainer + `","size":1}}`)
	}
	mf, err := k.Update("v2", "", nil, nil, v2("x"), nil, "bob")
	if err != nil {
		t.Fatal(err)
	}
	withMF, err := WithManagedFields(v2("x"), mf)
	if err != nil {
		t.Fatal(err)
	}
	live, err := k.spec.Convert(withMF, "v2", "v1")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := k.Apply("v1", "", live, []byte(`{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{"name":"p"},"spec":{"owner":"x"}}`), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if live, err = k.spec.Convert(shared, "v1", "v2"); err != nil {
		t.Fatal(err)
	}
	mf, err = k.Update("v2", "", live, ManagedFieldsOf(live), v2("y"), nil, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if got := stripTimes(mf); strings.Contains(got, "f:owner") {
		t.Fatalf("alice kept the field bob changed: %s", mf)
	}
}

// stripTimes is a managedFields list's entries, each as it is written
// but for its time.
// crossedSecond reports whether kube's FieldManager, which reads the clock
// itself, stamped an entry of mf in another second than now: it orders
// entries by time, so the order may then differ from the shortcut's.
func crossedSecond(mf []byte, now time.Time) bool {
	stamp := now.UTC().Format(time.RFC3339)
	for _, e := range gjson.ParseBytes(mf).Array() {
		if ts := e.Get("time").Str; ts > stamp {
			return true
		}
	}
	return false
}

// sortedStripped is stripTimes in any order.
func sortedStripped(mf []byte) string {
	entries := strings.Split(stripTimes(mf), ";")
	slices.Sort(entries)
	return strings.Join(entries, ";")
}

func stripTimes(mf []byte) string {
	var out []string
	for _, e := range gjson.ParseBytes(mf).Array() {
		raw, err := sjson.Delete(e.Raw, "time")
		if err != nil {
			raw = e.Raw
		}
		out = append(out, raw)
	}
	return strings.Join(out, ";")
}

// renamingKind has two versions that name one field differently: v1's
// spec.owner is v2's spec.maintainer.
func renamingKind() *Kind {
	schema := func(field string) []byte {
		return []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"` + field +
			`":{"type":"string"},"size":{"type":"integer"}}}}}`)
	}
	rename := map[string][2]string{"v1": {"owner", "maintainer"}, "v2": {"maintainer", "owner"}}
	return NewKind(Spec{Group: "example.com", Kind: "Pipe",
		Versions: []Version{{Name: "v1", Schema: schema("owner")}, {Name: "v2", Schema: schema("maintainer")}},
		Convert: func(obj []byte, from, to string) ([]byte, error) {
			if from == to {
				return obj, nil
			}
			names := rename[from]
			out := strings.Replace(string(obj), `"`+names[0]+`"`, `"`+names[1]+`"`, 1)
			return []byte(strings.Replace(out, `"example.com/`+from+`"`, `"example.com/`+to+`"`, 1)), nil
		}})
}
