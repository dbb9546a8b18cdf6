//go:build !unix

package pgserver

import (
	"errors"
	"syscall"
)

// account is unused on this platform: the server runs as the current user.
type account struct{}

func serverAccount() (*account, error)            { return nil, nil }
func (a *account) chown(string) error             { return nil }
func (a *account) chownTree(string) error         { return nil }
func (a *account) blocked(string) (string, error) { return "", nil }
func (a *account) shared() (string, error)        { return "", errors.ErrUnsupported }
func (a *account) openUp(string) error            { return nil }
func procAttr(*account) *syscall.SysProcAttr      { return nil }
