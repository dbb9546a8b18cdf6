package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/dynapi/dynapi/engine/authz"
)

// Log decides what to record by its Policy and writes Events as JSON
// lines. Writes are serialized and synchronous, kube's "blocking" mode: a
// request is answered once its event is written.
type Log struct {
	policy *Policy

	mu      sync.Mutex
	out     io.Writer
	file    *os.File // nil for standard output
	path    string
	size    int64
	maxSize int64 // bytes; 0: no rotation
	backups int
}

// Options are the --audit-log-* flags.
type Options struct {
	// Path is the log file, "-" for standard output.
	Path string
	// MaxSizeMB rotates the file once it reaches this many megabytes (0: never).
	MaxSizeMB int
	// MaxBackups is how many rotated files are kept (path.1 the newest).
	MaxBackups int
}

// Open returns a Log of policy writing where opts say.
func Open(policy *Policy, opts Options) (*Log, error) {
	l := &Log{policy: policy, path: opts.Path, maxSize: int64(opts.MaxSizeMB) << 20, backups: opts.MaxBackups}
	if opts.Path == "-" {
		l.out = os.Stdout
		return l, nil
	}
	if err := l.openLocked(); err != nil {
		return nil, err
	}
	return l, nil
}

// NewLog returns a Log of policy writing to w, for tests.
func NewLog(policy *Policy, w io.Writer) *Log { return &Log{policy: policy, out: w} }

// Policy is the log's policy.
func (l *Log) Policy() *Policy { return l.policy }

func (l *Log) openLocked() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open audit log: %w", err)
	}
	l.file, l.out, l.size = f, f, st.Size()
	return nil
}

// Write records ev unless its stage is one omitted. Errors writing are
// returned for the caller to log; the request goes on.
func (l *Log) Write(ev *Event, omit []Stage) error {
	if slices.Contains(omit, ev.Stage) {
		return nil
	}
	ev.Kind, ev.APIVersion = "Event", "audit.k8s.io/v1"
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil && l.maxSize > 0 && l.size+int64(len(line)) > l.maxSize && l.size > 0 {
		if err := l.rotateLocked(); err != nil {
			return err
		}
	}
	n, err := l.out.Write(line)
	l.size += int64(n)
	return err
}

// rotateLocked renames path to path.1 (path.1 to path.2, ...), drops
// what is beyond the backups kept, and opens a new file.
func (l *Log) rotateLocked() error {
	l.file.Close()
	for i := l.backups; i >= 1; i-- {
		from := l.path
		if i > 1 {
			from = fmt.Sprintf("%s.%d", l.path, i-1)
		}
		_ = os.Rename(from, fmt.Sprintf("%s.%d", l.path, i)) // a missing backup is fine
	}
	if l.backups == 0 {
		_ = os.Remove(l.path)
	}
	return l.openLocked()
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// Evaluate is the policy's level and omitted stages for a.
func (l *Log) Evaluate(a *authz.Attributes) (Level, []Stage) { return l.policy.Evaluate(a) }
