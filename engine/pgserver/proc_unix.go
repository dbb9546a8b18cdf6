//go:build unix && !linux

package pgserver

import "syscall"

// procAttr makes a child run as a, in its own process group (so a Ctrl-C in
// the terminal reaches dynapi, which then stops the server in order). This
// platform has no parent-death signal: a killed dynapi leaves the server
// running until PostgreSQL notices nothing (stop it with pg_ctl).
func procAttr(a *account) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: a.credential()}
}
