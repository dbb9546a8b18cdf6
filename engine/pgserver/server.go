// Package pgserver runs a private PostgreSQL server from the binaries
// installed on the machine: for `dynapi` started without a database URL, and
// for tests. The server listens only on a Unix socket in a directory of its
// own, never on TCP, so any number of servers can run side by side.
package pgserver

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"sync"
)

// Options configure Start.
type Options struct {
	// DataDir is where a persistent server keeps its files: the cluster in
	// DataDir/pgdata (created by initdb on first use, reused afterwards) and
	// the server log in DataDir/postgres.log. For an Ephemeral server it is
	// the parent of its temporary directory (default: os.TempDir()). Run as
	// root, a new cluster that the postgres user could not reach there goes
	// under /var/lib/dynapi, with DataDir/pgdata a symbolic link to it.
	DataDir string
	// Ephemeral servers live in a new temporary directory that Stop removes,
	// and trade durability for speed (fsync, synchronous_commit and
	// full_page_writes off).
	Ephemeral bool
	// Durable keeps an Ephemeral server's commits durable against a crash
	// of PostgreSQL (synchronous_commit on: a commit is in the WAL before
	// it is acknowledged), though not of the machine (fsync stays off):
	// for tests that stop PostgreSQL at once and count what it kept.
	Durable bool
	// Logger receives progress messages; nil discards them.
	Logger *slog.Logger
	// Primary, when set, makes the new cluster a hot-standby streaming
	// replica of it, copied with pg_basebackup -R instead of made by
	// initdb: for tests of reads from replicas and of failover.
	Primary *Server

	search *binSearch // where to look for binaries; nil: defaultSearch()
}

// Server is a running PostgreSQL server started by Start.
type Server struct {
	bin       string // PostgreSQL bin directory
	acct      *account
	log       *slog.Logger
	ephemeral bool
	durable   bool
	primary   *Server  // the server a replica was copied from; nil for a primary
	dataDir   string   // the cluster
	sockDir   string   // the only place the server listens
	logPath   string   // the server's stdout and stderr
	temps     []string // directories Stop removes

	proc    *os.Process   // the postmaster; set before Start returns
	done    chan struct{} // closed when the postmaster has exited
	waitErr error         // its exit status; read after done is closed

	stopOnce sync.Once
	stopErr  error
}

// Start starts a PostgreSQL server and waits until it accepts connections.
// When the process runs as root, the server runs as the postgres user.
// ctx bounds the startup only; the server runs until Stop. The returned
// errors include ErrNoBinaries and, for a failed startup, the server log tail.
func Start(ctx context.Context, opts Options) (*Server, error) {
	search := opts.search
	if search == nil {
		search = defaultSearch()
	}
	bin, err := search.find()
	if err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, acct: acct, log: opts.Logger, ephemeral: opts.Ephemeral, durable: opts.Durable, primary: opts.Primary, done: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := s.prepare(opts.DataDir); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	if err := s.start(ctx); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	s.log.Info("PostgreSQL started", "dataDir", s.dataDir, "socketDir", s.sockDir, "bin", s.bin)
	return s, nil
}

// URL returns a connection string for the server's postgres database, as
// the postgres superuser over the server's Unix socket.
func (s *Server) URL() string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Path:     "/postgres",
		RawQuery: url.Values{"host": {s.sockDir}, "sslmode": {"disable"}}.Encode(),
	}
	return u.String()
}

// PID returns the process ID of the postmaster, the server's first
// process: every other process of the server (a backend per connection, the
// checkpointer, the WAL writer, ...) is its child. It stays valid until Stop.
func (s *Server) PID() int { return s.proc.Pid }

// Stop shuts the server down (fast shutdown: open sessions are ended), waits
// for it to exit, and removes its socket directory and, for an Ephemeral
// server, its data. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.stopErr = errors.Join(s.shutdown(), s.removeTemps())
		s.log.Info("PostgreSQL stopped", "dataDir", s.dataDir)
	})
	return s.stopErr
}
