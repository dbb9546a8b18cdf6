//go:build !unix

package objcache

// newArena returns n bytes for the entries: on the Go heap where there is
// no mmap.
func newArena[T any](_ *T, n int) []byte { return make([]byte, n) }
