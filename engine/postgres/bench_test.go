package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/tidwall/sjson"
)

// benchObject is an object of about 1.2 KB, like the reference figures'.
func benchObject(name string) engine.Object {
	obj := newObject(pipes, "default", name, map[string]string{"app": "bench", "tier": "back"})
	obj.Body, _ = sjson.SetBytes(obj.Body, "spec.description", strings.Repeat("x", 1000))
	return obj
}

func BenchmarkCreate(b *testing.B) {
	s := newStore(b)
	createNamespace(b, s, "default")
	var n atomic.Int64
	b.SetParallelism(8) // 16 clients on 2 cores, as in the reference figures
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Create(context.Background(), benchObject(fmt.Sprint("p", n.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkGet(b *testing.B) {
	s := newStore(b)
	createNamespace(b, s, "default")
	const objects = 1000
	for i := range objects {
		mustCreate(b, s, benchObject(fmt.Sprint("p", i)))
	}
	var n atomic.Int64
	b.SetParallelism(8) // 16 clients on 2 cores, as in the reference figures
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := engine.ObjectKey{Resource: pipes, Namespace: "default", Name: fmt.Sprint("p", n.Add(1)%objects)}
			if _, err := s.Get(context.Background(), key); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
