package schema

import (
	"slices"
	"testing"
)

func TestDropDuplicates(t *testing.T) {
	tests := []struct {
		name, in, want string
		found          []string
	}{
		{"none", `{"a":1,"b":{"c":[1,{"d":2}]}}`, `{"a":1,"b":{"c":[1,{"d":2}]}}`, nil},
		{"last wins", `{"spec":{"size":1,"color":"red","size":2}}`, `{"spec":{"color":"red","size":2}}`, []string{"spec.size"}},
		{"three times", `{"a":1,"a":2,"a":3}`, `{"a":3}`, []string{"a", "a"}},
		{"in metadata", `{"metadata":{"name":"a","labels":{"x":"1"},"name":"b"}}`, `{"metadata":{"labels":{"x":"1"},"name":"b"}}`, []string{"metadata.name"}},
		{"in arrays", `{"items":[{"k":1},{"k":1,"k":2}]}`, `{"items":[{"k":1},{"k":2}]}`, []string{"items[1].k"}},
		{"escaped keys are the same key", `{"a":1,"\u0061":2}`, `{"\u0061":2}`, []string{"a"}},
		{"whole subtrees dropped", `{"s":{"x":{"y":1,"y":2}},"s":{"z":3}}`, `{"s":{"z":3}}`, []string{"s"}},
		{"not an object", `[1,2]`, `[1,2]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := DropDuplicates([]byte(tt.in))
			if string(got) != tt.want || !slices.Equal(found, tt.found) {
				t.Errorf("DropDuplicates(%s) = %s, %q; want %s, %q", tt.in, got, found, tt.want, tt.found)
			}
		})
	}
}

func BenchmarkDropDuplicates(b *testing.B) {
	obj := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
		`"labels":{"app":"web","tier":"front"}},"spec":{"color":"red","size":3,"tags":["a","b","c"],` +
		`"description":"a fairly long description of the widget to make the object larger than a few hundred bytes"}}`)
	for b.Loop() {
		DropDuplicates(obj)
	}
}
