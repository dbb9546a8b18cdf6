package resource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// BenchmarkCachedWrites measures updates (PUT with the resourceVersion
// of the last write, as dynapi-bench sends them) and deletes, each after
// a create, of a Widget through the pipeline over a real PostgreSQL,
// with the cache of stored objects (cache=on) and without (cache=off).
// gets/op is the reads of objects each write makes: a round trip each.
func BenchmarkCachedWrites(b *testing.B) {
	for _, cacheBytes := range []int64{0, 16 << 20} {
		name := map[bool]string{true: "on", false: "off"}[cacheBytes > 0]
		b.Run("cache="+name+"/op=update", func(b *testing.B) { benchCachedWrites(b, cacheBytes, benchUpdate) })
		b.Run("cache="+name+"/op=delete", func(b *testing.B) { benchCachedWrites(b, cacheBytes, benchDelete) })
	}
}

// benchUpdate and benchDelete are the write of benchCachedWrites.
var (
	benchUpdate = func(ctx context.Context, s *resource.Service, t resource.Target, i int, last []byte) ([]byte, error) {
		res, err := s.Update(ctx, t, fmt.Sprint("w", i), setSize(last, 2), resource.WriteOptions{})
		return res.Object, err
	}
	benchDelete = func(ctx context.Context, s *resource.Service, t resource.Target, i int, _ []byte) ([]byte, error) {
		res, err := s.Delete(ctx, t, fmt.Sprint("w", i), resource.DeleteOptions{})
		return res.Object, err
	}
)

func benchCachedWrites(b *testing.B, cacheBytes int64,
	write func(ctx context.Context, s *resource.Service, t resource.Target, i int, last []byte) ([]byte, error)) {
	ctx := context.Background()
	kit := servicetest.Open(b, "ns")
	store := &countingStore{Store: kit.Store}
	s := resource.New(store)
	s.SetCacheBytes(cacheBytes)
	t := target(b, kit, "shop.example.com", "v1", "widgets")
	body := strings.Replace(widgetBody, `"spec":{"size":1}`, `"spec":{"size":1,"description":"`+strings.Repeat("d", 190)+`","tags":["`+strings.Repeat("t", 900)+`"]}`, 1)
	var gets int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		created, err := s.Create(ctx, t, []byte(strings.Replace(body, `"name":"w"`, fmt.Sprintf(`"name":"w%d"`, i), 1)), resource.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		before := store.gets.Load()
		b.StartTimer()
		if _, err := write(ctx, s, t, i, created.Object); err != nil {
			b.Fatal(err)
		}
		gets += store.gets.Load() - before
	}
	b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
}
