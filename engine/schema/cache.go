package schema

import (
	"crypto/sha256"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"
)

// Compiling a schema is the costliest part of loading a definition
// (translating it, compiling the validator, checking it against JSON
// Schema's metaschema), and the same schema is compiled over and over:
// a CustomResourceDefinition created through the API is checked when it
// is written and loaded again when its event arrives; its versions often
// share one schema; a file that changes keeps most of its schemas. So
// compiled schemas are found again by their content while anything uses
// them: a Schema is immutable, and one compile serves every definition
// and version that declares the same schema.

// cacheKey is the hash of a schema's canonical JSON: its keys sorted and
// its spacing dropped, so that the same schema read back from PostgreSQL
// (jsonb reorders keys) is found again.
type cacheKey [sha256.Size]byte

func keyOf(decoded map[string]any) cacheKey {
	return sha256.Sum256(marshal(decoded))
}

// recentSchemas is how many of the last schemas compiled are held even
// when nothing else uses them: a definition checked on its write is
// loaded moments later, and the collector may run between the two.
const recentSchemas = 256

// schemaCache finds compiled schemas by content. Entries are weak: a
// schema nothing uses is collected, and its entry removed.
type schemaCache struct {
	mu     sync.Mutex
	byKey  map[cacheKey]weak.Pointer[Schema]
	recent [recentSchemas]*Schema // a ring; next is the slot to fill
	next   int
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
	c.recent[c.next] = s
	c.next = (c.next + 1) % recentSchemas
	runtime.AddCleanup(s, c.drop, key)
	return s
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
