package pgserver

import "syscall"

// procAttr makes a child run as a, in its own process group (so a Ctrl-C in
// the terminal reaches dynapi, which then stops the server in order), and
// asks the kernel to send it SIGINT, PostgreSQL's fast shutdown, when the
// thread that started it dies: a killed dynapi or test binary does not leave
// a server running. Start keeps that thread alive for the child's lifetime.
func procAttr(a *account) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT, Credential: a.credential()}
}
