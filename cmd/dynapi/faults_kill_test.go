package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// One of two processes on one database killed (kill -9) under a write
// load: the other keeps serving; no write either acknowledged is lost;
// its watch, open from before, sees every acknowledged write, those of
// the killed process and its own.
func TestKilledReplica(t *testing.T) {
	dbURL, _ := startPostgres(t)
	a := startProcess(t, "A", dbURL)
	b := startProcess(t, "B", dbURL) // after A: A has migrated the database
	from := listRVOf(t, b.url)
	_, _, w := openWatch(t.Context(), t, b.url, from)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	load := newWriteLoad(a.url, b.url)
	load.start(ctx, "kill")
	wait.Sleep(ctx, 700*time.Millisecond)
	load.drop(a.url)
	if err := a.end(t, syscall.SIGKILL); err == nil {
		t.Fatal("dynapi A exited with status 0 after kill -9")
	}
	wait.Sleep(ctx, 700*time.Millisecond)
	cancel()
	load.wait()
	load.check(t, b.url)
	followWatch(t, b.url, w, load.ackedAfter(from))
}
