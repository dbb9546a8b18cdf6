//go:build unix

package connlimit

import "syscall"

// fileLimit is the process's soft limit on open files.
func fileLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return rl.Cur, true
}
