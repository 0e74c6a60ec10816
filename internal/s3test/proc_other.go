//go:build !linux

package s3test

import (
	"errors"
	"syscall"
	"time"
)

func procAttr() *syscall.SysProcAttr { return nil }

func cpuTime(int) (time.Duration, error) {
	return 0, errors.New("s3test: the store's CPU time is read from /proc, on Linux only")
}

func signalStore(int, bool) error {
	return errors.New("s3test: freezing the store is done with SIGSTOP, on Linux only")
}
