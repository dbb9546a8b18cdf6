// Package objcache keeps the objects one process last wrote or read for
// a write, bounded by bytes, so that the next write of the same object
// can skip reading it back (see engine/resource's use, after
// kube-apiserver's cachedExistingObject).
//
// An entry is never wrong, only possibly not the latest: an object at a
// given resourceVersion never changes, since resourceVersions are unique
// across every process on the data. A user of an entry must therefore
// condition what it does on the entry's resourceVersion and go to the
// database when that fails; reads must never answer from it.
package objcache

import (
	"strings"
	"sync"

	"github.com/dynapi/dynapi/engine"
)

// DefaultMaxBytes bounds a Cache unless told otherwise: about 3,500
// objects of 1.6 KB, whatever the number of objects stored.
const DefaultMaxBytes = 8 << 20

// The entries' bytes (bodies and remainders) are kept outside the Go heap,
// in an arena of blockSize blocks that the cache maps once (see newArena);
// only the keys and the blocks' numbers are on the heap.
//
// Why: the collector lets the heap grow to three times what is live
// (GOGC 200, see cmd/dynapi) before it collects, so each MiB of entries on
// the heap cost a server about 3.5 MiB resident: 8 MiB took dynapi-bench's
// server from 88–91 to 119–121 MiB, a third of its live heap. In the
// arena a MiB of entries costs a MiB.
const blockSize = 256

// entryOverhead is what an entry costs beyond its blocks and strings, on
// the heap: the map's key and value (an ObjectKey, an engine.Object and the
// blocks' numbers, about 260 bytes), the map's room to grow, and the
// blocks' slice (measured: about 550 bytes an entry with its strings).
const entryOverhead = 512

// Cache maps object keys to the last object seen, bounded by the bytes of
// its entries. It is safe for concurrent use.
type Cache struct {
	max     int64
	mu      sync.Mutex
	bytes   int64 // of entries, entryOverhead included
	entries map[engine.ObjectKey]entry
	arena   []byte  // max bytes of blocks, mapped at the first Put
	free    []int32 // blocks given back, reused first
	unused  int32   // blocks from here on were never used
}

// entry is one object: its fields but its bytes, which are in blocks,
// the body first, then the remainder.
type entry struct {
	obj          engine.Object // Body and Remainder nil
	bodyLen      int
	remainderLen int // -1: no remainder (nil), as against an empty one
	blocks       []int32
}

// New returns a Cache holding at most maxBytes of entries; maxBytes <= 0
// holds nothing.
func New(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, entries: map[engine.ObjectKey]entry{}}
}

// Get returns a copy of the entry of key: the object this process last
// saw there, not necessarily the latest.
func (c *Cache) Get(key engine.ObjectKey) (engine.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return engine.Object{}, false
	}
	o := e.obj
	buf := make([]byte, e.bodyLen+max(e.remainderLen, 0))
	for i, n := 0, 0; n < len(buf); i++ {
		n += copy(buf[n:], c.block(e.blocks[i]))
	}
	// Full slices: an append to the body must not write over the remainder.
	o.Body = buf[:e.bodyLen:e.bodyLen]
	if e.remainderLen >= 0 {
		o.Remainder = buf[e.bodyLen:]
	}
	return o, true
}

// Put keeps a copy of o as the entry of its key, unless the entry there
// is newer (a later resourceVersion: a write that finished first) or o
// alone exceeds the bound. It evicts entries at random until the rest
// fit: unlike least-recently-used, a pass over more objects than fit (a
// benchmark's phases, a controller's resync) still finds some of them.
func (c *Cache) Put(o engine.Object) {
	blocks := blocksFor(len(o.Body) + len(o.Remainder))
	size := sizeOf(o, blocks)
	if size > c.max {
		c.Delete(o.Key)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[o.Key]; ok {
		if old.obj.ResourceVersion > o.ResourceVersion {
			return
		}
		c.removeLocked(old)
	}
	for c.bytes+size > c.max && len(c.entries) > 0 {
		c.evictLocked()
	}
	if c.arena == nil {
		c.arena = newArena(c, int(c.max/blockSize*blockSize))
	}
	e := entry{bodyLen: len(o.Body), remainderLen: -1, blocks: make([]int32, blocks)}
	if o.Remainder != nil {
		e.remainderLen = len(o.Remainder)
	}
	for i := range e.blocks {
		e.blocks[i] = c.takeBlockLocked()
	}
	c.writeLocked(e.blocks, o.Body, o.Remainder)
	o.Body, o.Remainder = nil, nil
	e.obj = own(o)
	c.entries[e.obj.Key] = e
	c.bytes += size
}

// Delete drops the entry of key, if any.
func (c *Cache) Delete(key engine.ObjectKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.removeLocked(old)
	}
}

// Bytes is the size of the entries, as the bound counts it.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *Cache) removeLocked(e entry) {
	delete(c.entries, e.obj.Key)
	c.free = append(c.free, e.blocks...)
	c.bytes -= sizeOf(e.obj, len(e.blocks))
}

// evictLocked drops one entry: the first of a map range, which Go starts
// at a random place.
func (c *Cache) evictLocked() {
	for _, e := range c.entries {
		c.removeLocked(e)
		return
	}
}

// block is block i of the arena.
func (c *Cache) block(i int32) []byte {
	off := int(i) * blockSize
	return c.arena[off : off+blockSize : off+blockSize]
}

// takeBlockLocked returns a free block. The bound makes one free: every
// entry counts its blocks, and the arena holds the bound's worth.
func (c *Cache) takeBlockLocked() int32 {
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		return b
	}
	c.unused++
	return c.unused - 1
}

// writeLocked copies parts, one after the other, into blocks.
func (c *Cache) writeLocked(blocks []int32, parts ...[]byte) {
	i, dst := 0, []byte(nil)
	for _, p := range parts {
		for len(p) > 0 {
			if len(dst) == 0 {
				dst = c.block(blocks[i])
				i++
			}
			n := copy(dst, p)
			dst, p = dst[n:], p[n:]
		}
	}
}

// blocksFor is how many blocks n bytes take; at least one, so that the
// entries are bounded in number too.
func blocksFor(n int) int {
	return max(1, (n+blockSize-1)/blockSize)
}

// sizeOf is what o costs the bound in blocks blocks: those, its strings
// and the entry's overhead.
func sizeOf(o engine.Object, blocks int) int64 {
	k := o.Key
	strings := len(o.StoredVersion) + len(k.Resource.Group) + len(k.Resource.Resource) + len(k.Namespace) + len(k.Name)
	return int64(blocks*blockSize + strings + entryOverhead)
}

// own is o's strings copied, since a name may share the memory of the
// request it came from (a view of its body), which the entry would
// otherwise keep whole.
func own(o engine.Object) engine.Object {
	k := &o.Key
	k.Resource.Group, k.Resource.Resource = strings.Clone(k.Resource.Group), strings.Clone(k.Resource.Resource)
	k.Namespace, k.Name, o.StoredVersion = strings.Clone(k.Namespace), strings.Clone(k.Name), strings.Clone(o.StoredVersion)
	return o
}
