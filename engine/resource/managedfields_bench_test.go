package resource

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// BenchmarkUpdateManagedFields measures an update of a ~1.2 KB Widget
// through the whole pipeline (over an in-memory store), with and without
// the managedFields stage: "unchanged" rewrites the object as it is
// (kube-apiserver's no-op update), "owned" changes a field its manager
// already owns, the common update of a controller.
func BenchmarkUpdateManagedFields(b *testing.B) {
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	r, v, _ := snap.Lookup("shop.example.com", "v1", "widgets")
	for _, fields := range []bool{false, true} {
		rr := *r
		if !fields {
			rr.Fields = nil
		}
		t := Target{Resource: &rr, Version: v, Namespace: "default"}
		for _, change := range []string{"unchanged", "owned"} {
			b.Run(fmt.Sprintf("fields=%v/%s", fields, change), func(b *testing.B) {
				benchUpdate(b, t, change == "owned")
			})
		}
	}
}

func benchUpdate(b *testing.B, t Target, change bool) {
	ctx := context.Background()
	s := New(newMemStore())
	opts := WriteOptions{FieldValidation: FieldValidationWarn, FieldManager: "bench"}
	created, err := s.Create(ctx, t, widgetBody(1, ""), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(created.Object)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cur, err := s.Get(ctx, t, "bench")
		if err != nil {
			b.Fatal(err)
		}
		size := 1
		if change {
			size = 1 + (i+1)%50
		}
		rv := gjson.GetBytes(cur, "metadata.resourceVersion").Str
		if _, err := s.Update(ctx, t, "bench", widgetBody(size, rv), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// widgetBody is a Widget of about 1.2 KB.
func widgetBody(size int, rv string) []byte {
	tags := make([]string, 40)
	for i := range tags {
		tags[i] = fmt.Sprintf(`"tag-%02d-abcdefgh"`, i)
	}
	meta := `"name":"bench","namespace":"default","labels":{"app":"bench","tier":"backend","team":"platform"},` +
		`"annotations":{"example.com/owner":"someone@example.com","example.com/description":"a widget for the managedFields benchmark"}`
	if rv != "" {
		meta += `,"resourceVersion":"` + rv + `"`
	}
	return fmt.Appendf(nil, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{%s},`+
		`"spec":{"color":"green","size":%d,"description":"%s","dimensions":{"width":1.5,"height":2.5},"tags":[%s]}}`,
		meta, size, strings.Repeat("d", 150), strings.Join(tags, ","))
}
