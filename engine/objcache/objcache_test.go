package objcache

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/dynapi/dynapi/engine"
)

var widgets = engine.GroupResource{Group: "example.com", Resource: "widgets"}

func key(name string) engine.ObjectKey {
	return engine.ObjectKey{Resource: widgets, Namespace: "ns", Name: name}
}

func object(name string, rv int64, body string) engine.Object {
	return engine.Object{Key: key(name), StoredVersion: "v1", ResourceVersion: rv, Body: []byte(body)}
}

func TestPutKeepsTheNewest(t *testing.T) {
	tests := []struct {
		name   string
		puts   []engine.Object
		delete bool
		want   int64 // the entry's resourceVersion; 0: none
	}{
		{"one", []engine.Object{object("a", 5, `{}`)}, false, 5},
		{"a later write replaces", []engine.Object{object("a", 5, `{}`), object("a", 7, `{}`)}, false, 7},
		{"an earlier read does not", []engine.Object{object("a", 7, `{}`), object("a", 5, `{}`)}, false, 7},
		{"deleted", []engine.Object{object("a", 5, `{}`)}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(DefaultMaxBytes)
			for _, o := range tt.puts {
				c.Put(o)
			}
			if tt.delete {
				c.Delete(key("a"))
			}
			got, ok := c.Get(key("a"))
			if !ok && tt.want != 0 || ok && got.ResourceVersion != tt.want {
				t.Fatalf("Get = rv %d, %v; want %d", got.ResourceVersion, ok, tt.want)
			}
			if tt.want == 0 && c.Bytes() != 0 {
				t.Fatalf("Bytes = %d with no entry", c.Bytes())
			}
		})
	}
}

// TestBoundByBytes fills a cache past its bound and checks that its
// entries stay within it, by their bytes, not their number.
func TestBoundByBytes(t *testing.T) {
	tests := []struct {
		name     string
		bodySize int
		maxBytes int64
	}{
		{"small bodies", 100, 10_000},
		{"large bodies", 4_000, 10_000},
		{"one fits", 5_000, 6_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.maxBytes)
			body := `{"s":"` + strings.Repeat("x", tt.bodySize) + `"}`
			for i := range 1000 {
				c.Put(object(fmt.Sprintf("%04d", i), int64(i+1), body))
				if c.Bytes() > tt.maxBytes {
					t.Fatalf("after %d puts: %d bytes, bound %d", i+1, c.Bytes(), tt.maxBytes)
				}
			}
			perEntry := sizeOf(object("0999", 1, body), blocksFor(len(body)))
			if n := int64(c.Len()); n*perEntry != c.Bytes() || c.Bytes()+perEntry <= tt.maxBytes {
				t.Fatalf("%d entries of %d bytes = %d bytes under a bound of %d: not filled to it", n, perEntry, c.Bytes(), tt.maxBytes)
			}
			if _, ok := c.Get(key("0999")); !ok {
				t.Fatal("the last put is not kept")
			}
		})
	}
}

// TestEntriesKeepTheirBytes puts objects of many sizes, with and without
// a remainder, many more than fit, so that blocks are given back and
// taken again: each entry kept reads back as it was put, its remainder
// nil when it had none.
func TestEntriesKeepTheirBytes(t *testing.T) {
	c := New(64 << 10)
	want := map[string]engine.Object{}
	for i := range 2_000 {
		name := fmt.Sprintf("o%d", i%300)
		o := object(name, int64(i+1), strings.Repeat(string(rune('a'+i%26)), (i*37)%3000))
		switch i % 3 {
		case 1:
			o.Remainder = []byte(strings.Repeat("r", (i*11)%700))
		case 2:
			o.Remainder = []byte{}
		}
		c.Put(o)
		want[name] = o
	}
	kept := 0
	for name, o := range want {
		got, ok := c.Get(key(name))
		if !ok {
			continue
		}
		kept++
		if got.ResourceVersion != o.ResourceVersion || string(got.Body) != string(o.Body) ||
			string(got.Remainder) != string(o.Remainder) || (got.Remainder == nil) != (o.Remainder == nil) {
			t.Fatalf("%s reads back as rv %d body %d bytes remainder %v; put rv %d body %d bytes remainder %v",
				name, got.ResourceVersion, len(got.Body), got.Remainder, o.ResourceVersion, len(o.Body), o.Remainder)
		}
		if got.Body = append(got.Body, 'x'); got.Remainder != nil && len(got.Remainder) > 0 && got.Remainder[0] == 'x' {
			t.Fatalf("%s: an append to the body wrote over the remainder", name)
		}
	}
	if kept < 10 {
		t.Fatalf("%d of 300 objects kept in 64 KiB", kept)
	}
}

func TestTooLargeIsNotKept(t *testing.T) {
	c := New(1000)
	c.Put(object("a", 1, `{}`))
	c.Put(object("a", 2, `{"s":"`+strings.Repeat("x", 2000)+`"}`))
	if _, ok := c.Get(key("a")); ok {
		t.Fatal("an object larger than the bound is kept, or its older entry stayed")
	}
	if c.Bytes() != 0 {
		t.Fatalf("Bytes = %d", c.Bytes())
	}
}

func TestEntriesAreCopies(t *testing.T) {
	c := New(DefaultMaxBytes)
	o := object("a", 1, `{"a":1}`)
	c.Put(o)
	o.Body[5] = '2'
	got, _ := c.Get(key("a"))
	got.Body[5] = '3'
	again, _ := c.Get(key("a"))
	if string(again.Body) != `{"a":1}` {
		t.Fatalf("entry changed through a caller's bytes: %s", again.Body)
	}
}

func TestZeroBoundHoldsNothing(t *testing.T) {
	c := New(0)
	c.Put(object("a", 1, `{}`))
	if c.Len() != 0 {
		t.Fatal("a cache bounded at 0 bytes holds an entry")
	}
}

func BenchmarkPutGet(b *testing.B) {
	c := New(DefaultMaxBytes)
	body := make([]byte, 1600)
	keys := make([]engine.ObjectKey, 20_000)
	for i := range keys {
		keys[i] = key(fmt.Sprint(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := keys[i%len(keys)]
		c.Put(engine.Object{Key: k, ResourceVersion: int64(i + 1), Body: body})
		c.Get(k)
	}
}

// TestMemoryBound puts many more objects than fit, each with a name and
// body sharing a large buffer (as a name parsed from a request shares its
// body), and checks the heap the cache keeps is about its bound (without a copy
// of the name, each entry would keep its 16 KB buffer: 40 MiB and more).
func TestMemoryBound(t *testing.T) {
	const maxBytes = 4 << 20
	c := New(maxBytes)
	before := heapAlloc()
	for i := range 20_000 {
		buf := []byte(fmt.Sprintf(`{"metadata":{"name":"w%07d"}}`, i) + strings.Repeat(" ", 16<<10))
		o := engine.Object{Key: engine.ObjectKey{Resource: widgets, Namespace: "ns", Name: unsafeString(buf[22:30])},
			ResourceVersion: int64(i + 1), Body: buf[:1500]}
		c.Put(o)
	}
	// The bodies are in the arena, off the heap: the heap holds the keys,
	// the map and the blocks' numbers, about a quarter of the bound with
	// these bodies (1.5 KB). On the heap, the bodies took twice the bound.
	if grown := heapAlloc() - before; grown > maxBytes/3 {
		t.Fatalf("a cache bounded at %d bytes holds %d bytes of heap", maxBytes, grown)
	}
	runtime.KeepAlive(c)
}

func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// unsafeString views b as a string, as a parser's view of a body does.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }
