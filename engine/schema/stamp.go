package schema

import "encoding/binary"

// A read gives every stored object the defaults of the schema it is
// stored in (DefaultStored), and the check that finds none missing scans
// the object up to its last defaulted field: on a Widget of 1.5 KB with
// its managedFields, 10,800 instructions, a quarter of what a list spent
// on a row. An object written under a schema has that schema's defaults
// (kube-apiserver defaults every write), so a stamp of the schema kept
// with the stored object tells a read that the check would find nothing,
// until the schema changes.

// DefaultsStamp identifies the schema by its content (the hash of its
// canonical JSON, as the compile cache's key): the same schema compiled
// again, in this process or another, or read back from PostgreSQL, has
// the same stamp, and a changed schema another. Never 0.
func (s *Schema) DefaultsStamp() uint64 {
	return s.stamp
}

// StampOf returns the schema's DefaultsStamp when obj has every default
// of the schema (DefaultStored would not change it), else 0: the stamp to
// store with obj. obj must be valid JSON.
func (s *Schema) StampOf(obj []byte) uint64 {
	if s.root.defaults && s.lacksDefaults(obj) {
		return 0
	}
	return s.stamp
}

// DefaultStoredStamped is DefaultStored for an object stored with stamp
// (StampOf when it was written; 0: unknown): nothing to do when the stamp
// is this schema's.
func (s *Schema) DefaultStoredStamped(obj []byte, stamp uint64) ([]byte, bool) {
	if stamp != 0 && stamp == s.stamp {
		return obj, false
	}
	return s.DefaultStored(obj)
}

// stampOf makes a stamp of a schema's cache key; never 0.
func stampOf(key cacheKey) uint64 {
	return binary.LittleEndian.Uint64(key[:8]) | 1
}
