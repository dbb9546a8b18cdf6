package schema

import (
	"crypto/sha256"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// Compiling a schema is the costliest part of loading a definition
// (translating it, compiling the validator, checking it against JSON
// Schema's metaschema), and the same schema is compiled over and over:
// a CustomResourceDefinition created through the API is checked when it
// is written and loaded again when its event arrives; its versions often
// share one schema; a file that changes keeps most of its schemas. So
// compiled schemas are found again by their content while anything uses
// them, or for holdTime after they were compiled: a Schema is immutable,
// and one compile serves every definition and version that declares the
// same schema.

// cacheKey is the hash of a schema's canonical JSON: its keys sorted and
// its spacing dropped, so that the same schema read back from PostgreSQL
// (jsonb reorders keys) is found again.
type cacheKey [sha256.Size]byte

func keyOf(decoded map[string]any) cacheKey {
	return sha256.Sum256(marshal(decoded))
}

// holdTime is how long a schema just compiled is held even when nothing
// else uses it: a definition checked on its write is loaded when its event
// reaches the CRD controller, which under a burst of creates (kubectl
// apply of a folder of CRDs) runs seconds behind, and the collector may
// run between the two. maxHeld bounds what is held.
const (
	holdTime = 30 * time.Second
	maxHeld  = 8192
)

// schemaCache finds compiled schemas by content. Entries are weak: a
// schema nothing uses is collected, and its entry removed.
type schemaCache struct {
	mu    sync.Mutex
	byKey map[cacheKey]weak.Pointer[Schema]
	held  []heldSchema // oldest first
}

// heldSchema is a schema compiled at a time.
type heldSchema struct {
	s  *Schema
	at time.Time
}

var (
	compiled = &schemaCache{byKey: map[cacheKey]weak.Pointer[Schema]{}}
	compiles atomic.Int64
)

// Compiles returns how many schemas this process has compiled: a Compile
// that finds its schema compiled already does not count.
func Compiles() int64 { return compiles.Load() }

// get returns the live schema compiled from the content key names, if any.
func (c *schemaCache) get(key cacheKey) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byKey[key].Value()
}

// put records s as the schema of key and returns it, or the schema
// another goroutine compiled from the same content meanwhile.
func (c *schemaCache) put(key cacheKey, s *Schema) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	if live := c.byKey[key].Value(); live != nil {
		return live
	}
	c.byKey[key] = weak.Make(s)
	c.holdLocked(s, time.Now())
	runtime.AddCleanup(s, c.drop, key)
	return s
}

// holdLocked holds s, and lets go of what was held long enough.
func (c *schemaCache) holdLocked(s *Schema, now time.Time) {
	expired := 0
	for expired < len(c.held) && (now.Sub(c.held[expired].at) > holdTime || len(c.held)-expired >= maxHeld) {
		c.held[expired] = heldSchema{} // not kept alive by the array
		expired++
	}
	c.held = append(c.held[expired:], heldSchema{s, now})
}

// drop removes the entry of a collected schema, unless the content was
// compiled again since.
func (c *schemaCache) drop(key cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[key].Value() == nil {
		delete(c.byKey, key)
	}
}
