package s3test

import "syscall"

// procAttr kills weed with the test binary, so an aborted `go test` leaves
// no store running.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
