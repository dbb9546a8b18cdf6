package meta

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// TestSetMetadataAsSjson: SetResourceVersion and SetGeneration give
// sjson's bytes, whatever the metadata holds and wherever it is.
func TestSetMetadataAsSjson(t *testing.T) {
	for _, obj := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"b"},"data":{"k":"v"}}`,
		`{"metadata":{"name":"a","resourceVersion":"12"},"spec":{}}`,
		`{"metadata":{"resourceVersion":"12","name":"a"}}`,
		`{"metadata":{}}`,
		`{"kind":"X"}`,
		`{"spec":{"metadata":{"name":"inner"}},"metadata":{"name":"outer","managedFields":[{"f:metadata":{"resourceVersion":1}}]}}`,
		`{"metadata":{"name":"a","resourceVersion":12}}`,
		`{"metadata":{"name":"a","resourceVersion":null}}`,
		`{"metadata":{"name":"a","labels":{"resourceVersion":"x"}}}`,
		`{"metadata":{"name":"a \"}\" {","generation":1}}`,
		`{"metadata":"not an object"}`,
		`{"metadata":null}`,
		`{ "metadata" : { "name" : "a" } }`,
		`{"metadata":{"name":"a","generation":3,"labels":{"generation":"x"}}}`,
		`{"metadata":{"generation":null}}`,
		`{"metadata":{"managedFields":[{"f:metadata":{"generation":1}}],"generation":"2"}}`,
		`{"metadata":{ }}`,
		`{"metadata":{"name":"a" }}`,
	} {
		for _, n := range []int64{1, 9876543210, -1} {
			want, wantErr := sjson.SetBytes([]byte(obj), "metadata.resourceVersion", strconv.FormatInt(n, 10))
			got, err := SetResourceVersion([]byte(obj), n)
			if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Errorf("SetResourceVersion(%s, %d) = %s, %v; sjson gives %s, %v", obj, n, got, err, want, wantErr)
			}
			if s, ok := ResourceVersionSlot([]byte(obj)); ok {
				if got := s.Fill([]byte(obj), AppendResourceVersion(nil, n)); !bytes.Equal(got, want) {
					t.Errorf("ResourceVersionSlot(%s) = %+v, filled with %d: %s; sjson gives %s", obj, s, n, got, want)
				}
			}
			want, wantErr = sjson.SetBytes([]byte(obj), "metadata.generation", n)
			got, err = SetGeneration([]byte(obj), n)
			if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Errorf("SetGeneration(%s, %d) = %s, %v; sjson gives %s, %v", obj, n, got, err, want, wantErr)
			}
		}
	}
}

// A slot is found wherever metadata is an object, so that the storage
// layer's statements splice the resourceVersion into the text.
func TestResourceVersionSlotFound(t *testing.T) {
	for _, tt := range []struct {
		obj  string
		want Slot
	}{
		{`{"metadata":{"name":"a"}}`, Slot{At: 23, Prefix: `,"resourceVersion":`}},
		{`{"metadata":{}}`, Slot{At: 13, Prefix: `"resourceVersion":`}},
		{`{"metadata":{"resourceVersion":"7","name":"a"}}`, Slot{At: 31, Cut: 3}},
		{`{"metadata":{"name":"é","resourceVersion":"12"}}`, Slot{At: 43, Cut: 4}}, // At counts bytes: é is two
	} {
		got, ok := ResourceVersionSlot([]byte(tt.obj))
		if !ok || got != tt.want {
			t.Errorf("ResourceVersionSlot(%s) = %+v, %v; want %+v", tt.obj, got, ok, tt.want)
		}
	}
	for _, obj := range []string{`{"metadata":"not an object"}`, `{"kind":"X"}`, `{"metadata":null}`} {
		if s, ok := ResourceVersionSlot([]byte(obj)); ok {
			t.Errorf("ResourceVersionSlot(%s) = %+v, want none", obj, s)
		}
	}
}

// BenchmarkSetResourceVersion: a 1.6 KB Widget as a create stores it,
// through SetResourceVersion and through sjson; and its generation bumped,
// through SetGeneration and through sjson.
func BenchmarkSetResourceVersion(b *testing.B) {
	obj := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"bench",` +
		`"uid":"e9b3274d-8541-4ec5-a9a7-c6cfe179860f","generation":1,"creationTimestamp":"2026-11-26T17:25:16Z",` +
		`"labels":{"app":"dynapi-bench","bucket":"1","shard":"1"},"managedFields":[{"apiVersion":"shop.example.com/v1",` +
		`"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:bucket":{},"f:shard":{}}},` +
		`"f:spec":{".":{},"f:color":{},"f:description":{},"f:size":{},"f:tags":{}}},"manager":"dynapi-bench",` +
		`"operation":"Update","time":"2026-11-26T17:25:16Z"}]},"spec":{"color":"green","size":1,` +
		`"description":"a widget made by dynapi-bench to measure the server","tags":["` +
		strings.Repeat(strings.Repeat("t", 64)+`","`, 12) + strings.Repeat("t", 64) + `"]}}`)
	for _, c := range []struct {
		name string
		set  func() ([]byte, error)
	}{
		{"SetResourceVersion", func() ([]byte, error) { return SetResourceVersion(obj, 123456) }},
		{"sjson", func() ([]byte, error) { return sjson.SetBytes(obj, "metadata.resourceVersion", "123456") }},
		{"SetGeneration", func() ([]byte, error) { return SetGeneration(obj, 2) }},
		{"sjson generation", func() ([]byte, error) { return sjson.SetBytes(obj, "metadata.generation", int64(2)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.set(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
