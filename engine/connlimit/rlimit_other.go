//go:build !unix

package connlimit

// fileLimit is unknown here: no default limit.
func fileLimit() (uint64, bool) { return 0, false }
