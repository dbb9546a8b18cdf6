package pgserver

import (
	"fmt"
)

// copyPrimary makes the cluster a streaming replica of s.primary:
// pg_basebackup copies it over the primary's Unix socket (initdb's trust
// authentication allows local replication connections), and -R writes
// standby.signal and the primary_conninfo the replica streams from.
func (s *Server) copyPrimary() error {
	s.log.Info("copying PostgreSQL cluster for a replica", "dataDir", s.dataDir, "primary", s.primary.dataDir)
	args := []string{"-D", s.dataDir, "-h", s.primary.sockDir, "-p", "5432", "-U", "postgres",
		"-R", "-X", "stream", "-c", "fast"}
	if s.ephemeral {
		args = append(args, "--no-sync")
	}
	if out, err := s.command("pg_basebackup", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_basebackup %s: %w: %s", s.dataDir, err, tail(out))
	}
	return nil
}

// Promote turns a replica into a primary that takes writes (pg_ctl
// promote) and waits until it has. Errors: pg_ctl's, with its output.
func (s *Server) Promote() error {
	out, err := s.command("pg_ctl", "promote", "-w", "-D", s.dataDir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl promote %s: %w: %s", s.dataDir, err, tail(out))
	}
	return nil
}

// SocketDir is the directory of the server's Unix socket: the host of a
// multi-host connection string naming it beside others.
func (s *Server) SocketDir() string { return s.sockDir }
