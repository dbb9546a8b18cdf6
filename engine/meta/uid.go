package meta

import (
	"crypto/rand"
	"fmt"
)

// NewUID returns a random (version 4) UUID: an object's metadata.uid, a
// webhook request's uid.
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
