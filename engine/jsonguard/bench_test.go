package jsonguard

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// benchObject is a 1.8 KB object with managedFields, as a patch or a PUT
// of what was read brings it.
var benchObject = []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"bench","namespace":"default",` +
	`"uid":"e9b3274d-8541-4ec5-a9a7-c6cfe179860f","generation":1,"creationTimestamp":"2026-11-26T17:25:16Z",` +
	`"labels":{"app":"bench","team":"platform","tier":"backend"},"annotations":{"example.com/owner":"someone@example.com"},` +
	`"managedFields":[{"apiVersion":"shop.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":` +
	`{".":{},"f:example.com/owner":{}},"f:labels":{".":{},"f:app":{},"f:team":{},"f:tier":{}}},"f:spec":{".":{},"f:color":{},` +
	`"f:description":{},"f:dimensions":{".":{},"f:height":{},"f:width":{}},"f:size":{},"f:tags":{}}},"manager":"bench",` +
	`"operation":"Update","time":"2026-11-26T17:25:16Z"}],"resourceVersion":"1"},"spec":{"color":"green","size":1,` +
	`"description":"` + strings.Repeat("d", 150) + `","dimensions":{"width":1.5,"height":2.5},"tags":["` +
	strings.Repeat(`tag-00-abcdefgh","`, 39) + `tag-39-abcdefgh"]}}`)

// BenchmarkUnstorable: benchObject through the byte scan ("storable") and
// through the walk that names the fields at fault ("walk").
func BenchmarkUnstorable(b *testing.B) {
	obj := benchObject
	b.Run("storable", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if Unstorable(obj, 10) != nil {
				b.Fatal("unstorable")
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			walk(obj, 10)
		}
	})
}

// BenchmarkCompact: a compact request body through Compact and through
// json.Compact, which it replaces on the request path.
func BenchmarkCompact(b *testing.B) {
	b.Run("Compact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compact(benchObject); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Compact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var buf bytes.Buffer
			if err := json.Compact(&buf, benchObject); err != nil {
				b.Fatal(err)
			}
		}
	})
}
