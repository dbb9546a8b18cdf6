//go:build !unix

package pgserver

import (
	"log/slog"
	"syscall"
)

// account is unused on this platform: the server runs as the current user.
type account struct{}

func serverAccount() (*account, error)                        { return nil, nil }
func (a *account) chown(string) error                         { return nil }
func (a *account) chownTree(string) error                     { return nil }
func (a *account) makeTraversable(string, *slog.Logger) error { return nil }
func procAttr(*account) *syscall.SysProcAttr                  { return nil }
