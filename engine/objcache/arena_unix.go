//go:build unix

package objcache

import (
	"runtime"
	"syscall"
)

// newArena returns n bytes outside the Go heap: an anonymous mapping, whose
// pages become resident as they are first written, and are unmapped once
// owner is unreachable.
func newArena[T any](owner *T, n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n) // no address space to map: on the heap, as it used to be
	}
	runtime.AddCleanup(owner, func(b []byte) { _ = syscall.Munmap(b) }, b)
	return b
}
