package pki

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockName is the file in the folder whose exclusive creation is the
// folder's lock: processes that start together on an empty folder would
// otherwise each make a CA, and the folder would end with one's key beside
// another's certificate.
const lockName = ".lock"

// lockWait bounds how long Ensure waits for another process's lock. The
// holder keeps it for the milliseconds it takes to make keys and write
// files; a lock older than that was left by a process that died holding
// it, which the error says.
const lockWait = 30 * time.Second

// lockRetry is how often a waiting Ensure tries the lock again.
const lockRetry = 10 * time.Millisecond

// lock takes dir's lock and returns what releases it. Why a file created
// exclusively rather than flock: it works alike on every system the
// binary is built for (flock is missing on some), and on a folder shared
// between machines. Errors: the lock still held after lockWait, or a file
// that cannot be created.
func lock(dir string) (func(), error) {
	path := filepath.Join(dir, lockName)
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			release := func() { _ = os.Remove(path) }
			if err := f.Close(); err != nil {
				release()
				return nil, fmt.Errorf("lock %s: %w", dir, err)
			}
			return release, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another dynapi making its certificates, or was left by one that died: "+
				"remove it if no other dynapi is starting on this folder", path)
		}
		time.Sleep(lockRetry)
	}
}
