package apply

import (
	"testing"
	"time"
)

// plainWidgetSchema has only atomic lists and granular maps, and some
// fields of each shape a schema can give.
const plainWidgetSchema = `{"type":"object","properties":{
 "spec":{"type":"object","properties":{
  "replicas":{"type":"integer"},"color":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},
  "items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
  "empty":{"type":"object"},"nested":{"type":"object","additionalProperties":{"type":"object","additionalProperties":{"type":"integer"}}},
  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
  "ios":{"x-kubernetes-int-or-string":true}}},
 "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}`

// TestFastCreateMatchesFieldManager: where the create shortcut answers,
// it answers what kube-apiserver's FieldManager records, but for the time.
func TestFastCreateMatchesFieldManager(t *testing.T) {
	plain := NewKind(Spec{Group: "example.com", Kind: "Widget",
		Versions: []Version{{Name: "v1", Schema: []byte(plainWidgetSchema), Status: true}},
		Convert:  func(obj []byte, _, _ string) ([]byte, error) { return obj, nil }})
	const head = `{"apiVersion":"example.com/v1","kind":"Widget",`
	tests := []struct {
		name string
		kind *Kind
		obj  string
		fast bool
	}{
		{"every shape", plain, head + `"metadata":{"name":"w","namespace":"n","uid":"u","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z",` +
			`"generateName":"x","labels":{"a":"1","b.c/d":"2","<&>":"3"},"annotations":{"z":"q"}},"spec":{"replicas":1,"color":"red","tags":["x"],` +
			`"items":[{"name":"a"}],"empty":{},"nested":{"a":{"b":1}},"free":{"x":[1,{"y":2}],"m":{"k":"v","\"q\"":{}}},"ios":"5%"},"status":{"ready":true}}`, true},
		{"spec only", plain, head + `"metadata":{"name":"w"},"spec":{"color":"blue"}}`, true},
		{"empty spec", plain, head + `"metadata":{"name":"w"},"spec":{}}`, true},
		{"nothing to record", plain, head + `"metadata":{"name":"w"}}`, false},
		{"null", plain, head + `"metadata":{"name":"w"},"spec":{"color":null}}`, false},
		{"finalizers", plain, head + `"metadata":{"name":"w","finalizers":["a/b"]},"spec":{}}`, false},
		{"ownerReferences", plain, head + `"metadata":{"name":"w","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"1"}]},"spec":{}}`, false},
		{"last applied", plain, head + `"metadata":{"name":"w","annotations":{"` + lastApplied + `":"{}"}},"spec":{}}`, false},
		{"managedFields sent", plain, head + `"metadata":{"name":"w","managedFields":[]},"spec":{}}`, false},
		{"set and map lists", testKind(), head + `"metadata":{"name":"w"},"spec":{"tags":["a"]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, ok := tt.kind.fastCreate("v1", "example.com/v1", []byte(tt.obj), "alice", time.Now())
			if ok != tt.fast {
				t.Fatalf("fast path taken: %v, want %v (%s)", ok, tt.fast, fast)
			}
			fm, err := tt.kind.manager("v1", "")
			if err != nil {
				t.Fatal(err)
			}
			full, err := tt.kind.fullUpdate(fm, "v1", nil, []byte(tt.obj), "alice")
			if err != nil {
				t.Fatal(err)
			}
			if ok && stripTimes(fast) != stripTimes(full) {
				t.Fatalf("fast %s\nfull %s", fast, full)
			}
		})
	}
}

func TestPlainSchema(t *testing.T) {
	tests := []struct {
		schema string
		want   bool
	}{
		{plainWidgetSchema, true},
		{widgetSchema, false}, // set and map lists
		{`{"type":"object","properties":{"m":{"type":"object","x-kubernetes-map-type":"atomic"}}}`, false},
		{`{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true}}}`, false},
		{`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"atomic"}}}`, true},
		{``, false},
	}
	for _, tt := range tests {
		if got := plainSchema([]byte(tt.schema)); got != tt.want {
			t.Errorf("plainSchema(%.60s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}
