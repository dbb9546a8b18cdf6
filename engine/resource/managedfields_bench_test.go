package resource

import (
	"context"
	"fmt"
	"github.com/dynapi/dynapi/engine/admission"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// BenchmarkWriteManagedFields measures the writes of a ~1.2 KB Widget
// through the whole pipeline (over an in-memory store, so without
// PostgreSQL and HTTP), with and without the managedFields stage:
// "create"; "unchanged" rewrites the object as it is (kube-apiserver's
// no-op update); "owned" changes a field its manager already owns, the
// common update of a controller; "annotate" merge-patches a new
// annotation into a fresh object, as the load tool's patch phase does.
func BenchmarkWriteManagedFields(b *testing.B) {
	// dynapi serves with GOGC=200 (cmd/dynapi's defaultGCPercent): the
	// garbage collector's share of a write is measured as it is served.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	r, v := shippedWidget(b)
	for _, fields := range []bool{false, true} {
		rr := *r
		if !fields {
			rr.Fields = nil
		}
		t := Target{Resource: &rr, Version: v, Namespace: "default"}
		b.Run(fmt.Sprintf("fields=%v/create", fields), func(b *testing.B) {
			benchCreate(b, t, func(i int) []byte { return namedWidget(i) }, nil)
		})
		for _, change := range []string{"unchanged", "owned"} {
			b.Run(fmt.Sprintf("fields=%v/%s", fields, change), func(b *testing.B) {
				benchUpdate(b, t, change == "owned", nil)
			})
		}
		b.Run(fmt.Sprintf("fields=%v/annotate", fields), func(b *testing.B) { benchAnnotate(b, t) })
	}
}

// benchUpdate times updates of one object through a Service with chain
// as its admission plug-ins (nil: none), changing a field when change.
func benchUpdate(b *testing.B, t Target, change bool, chain *admission.Chain) {
	ctx := context.Background()
	s := benchService(chain)
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

// benchAnnotate creates an object, untimed, and times a merge patch that
// adds an annotation to it.
func benchAnnotate(b *testing.B, t Target) {
	ctx := context.Background()
	s := New(newMemStore())
	opts := WriteOptions{FieldValidation: FieldValidationWarn, FieldManager: "bench"}
	patch := []byte(`{"metadata":{"annotations":{"example.com/seq":"1"}}}`)
	b.SetBytes(int64(len(namedWidget(0))))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if i%freshStoreEvery == freshStoreEvery-1 {
			s = New(newMemStore())
		}
		if _, err := s.Create(ctx, t, namedWidget(i), opts); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Patch(ctx, t, fmt.Sprintf("w%d", i), MergePatch, patch, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// namedWidget is widgetBody named w<i>.
func namedWidget(i int) []byte {
	return []byte(strings.Replace(string(widgetBody(1, "")), `"name":"bench"`, fmt.Sprintf(`"name":"w%d"`, i), 1))
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
