package kubeproto

import (
	"encoding/json"
	"testing"
)

// FuzzToJSON: any body is decoded or refused, and what is decoded is JSON.
func FuzzToJSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("k8s\x00"))
	f.Add([]byte("k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Status"))
	f.Add([]byte("k8s\x00\x0a\x0f\x0a\x02v1\x12\x09Namespace\x12\x08\x0a\x06\x0a\x04demo"))
	crd, err := FromJSON([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"widgets.shop.example.com"},"spec":{"group":"shop.example.com","scope":"Namespaced",` +
		`"names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,` +
		`"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(crd)
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := ToJSON(body)
		if err == nil && !json.Valid(out) {
			t.Fatalf("ToJSON(%q) = %q: not JSON", body, out)
		}
	})
}
