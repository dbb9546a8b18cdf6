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

// DefaultMaxBytes bounds a Cache unless told otherwise: about 4,500
// objects of 1.6 KB, whatever the number of objects stored. Each MiB of
// entries costs a server about 3.5 MiB resident (the entries, the heap's
// fragmentation between them and the garbage collector's headroom over
// both): 8 MiB took dynapi-bench's server from 88-91 to 119-121 MiB, 16
// MiB to 145-150 MiB, against a bound of 150 MiB whatever the objects.
const DefaultMaxBytes = 8 << 20

// entryOverhead is what an entry costs beyond its bytes: the map's key
// and value (an ObjectKey and an engine.Object, about 210 bytes) and the
// map's own bookkeeping.
const entryOverhead = 256

// Cache maps object keys to the last object seen, bounded by the bytes of
// its entries. It is safe for concurrent use.
type Cache struct {
	max     int64
	mu      sync.Mutex
	bytes   int64 // of entries, entryOverhead included
	entries map[engine.ObjectKey]engine.Object
}

// New returns a Cache holding at most maxBytes of entries; maxBytes <= 0
// holds nothing.
func New(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, entries: map[engine.ObjectKey]engine.Object{}}
}

// Get returns a copy of the entry of key: the object this process last
// saw there, not necessarily the latest.
func (c *Cache) Get(key engine.ObjectKey) (engine.Object, bool) {
	c.mu.Lock()
	o, ok := c.entries[key]
	c.mu.Unlock()
	if !ok {
		return engine.Object{}, false
	}
	return clone(o), true
}

// Put keeps a copy of o as the entry of its key, unless the entry there
// is newer (a later resourceVersion: a write that finished first) or o
// alone exceeds the bound. It evicts entries at random until the rest
// fit: unlike least-recently-used, a pass over more objects than fit (a
// benchmark's phases, a controller's resync) still finds some of them.
func (c *Cache) Put(o engine.Object) {
	size := sizeOf(o)
	if size > c.max {
		c.Delete(o.Key)
		return
	}
	o = own(o)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[o.Key]; ok {
		if old.ResourceVersion > o.ResourceVersion {
			return
		}
		c.removeLocked(old)
	}
	for c.bytes+size > c.max && len(c.entries) > 0 {
		c.evictLocked()
	}
	c.entries[o.Key] = o
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

func (c *Cache) removeLocked(o engine.Object) {
	delete(c.entries, o.Key)
	c.bytes -= sizeOf(o)
}

// evictLocked drops one entry: the first of a map range, which Go starts
// at a random place.
func (c *Cache) evictLocked() {
	for _, o := range c.entries {
		c.removeLocked(o)
		return
	}
}

// sizeOf is what o costs the bound.
func sizeOf(o engine.Object) int64 {
	k := o.Key
	return int64(len(o.Body) + len(o.Remainder) + len(o.StoredVersion) +
		len(k.Resource.Group) + len(k.Resource.Resource) + len(k.Namespace) + len(k.Name) + entryOverhead)
}

// own is o as an entry keeps it: its bytes copied (see clone) and its
// strings too, since a name may share the memory of the request it came
// from (a view of its body), which the entry would otherwise keep whole.
func own(o engine.Object) engine.Object {
	k := &o.Key
	k.Resource.Group, k.Resource.Resource = strings.Clone(k.Resource.Group), strings.Clone(k.Resource.Resource)
	k.Namespace, k.Name, o.StoredVersion = strings.Clone(k.Namespace), strings.Clone(k.Name), strings.Clone(o.StoredVersion)
	return clone(o)
}

// clone copies o's bytes, so that neither the cache nor its caller sees
// the other change them.
func clone(o engine.Object) engine.Object {
	o.Body = append([]byte(nil), o.Body...)
	if o.Remainder != nil {
		o.Remainder = append([]byte(nil), o.Remainder...)
	}
	return o
}
