package idptest

import "syscall"

// procAttr kills Hydra with the test binary, so an aborted `go test`
// leaves no provider running.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
