package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Halt stops the postmaster as Stop does (fast shutdown), or at once
// (immediate shutdown: no checkpoint, crash recovery at the next start)
// when immediate is set, but keeps its data and socket directory: Resume
// starts the same cluster at the same URL. It is for tests of database
// outages; clients see the server go away as they would in production.
func (s *Server) Halt(immediate bool) error {
	if !immediate {
		return s.shutdown()
	}
	if err := s.proc.Signal(syscall.SIGQUIT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop postgres: %w", err)
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(startTimeout):
		return fmt.Errorf("stop postgres: process %d did not exit", s.proc.Pid)
	}
}

// Resume starts the cluster again after Halt and waits until it accepts
// connections. ctx bounds the startup only.
func (s *Server) Resume(ctx context.Context) error {
	select {
	case <-s.done:
	default:
		return errors.New("resume postgres: it is running")
	}
	s.done = make(chan struct{})
	return s.start(ctx)
}
