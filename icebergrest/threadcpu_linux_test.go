package icebergrest

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the calling thread's CPU time, read with
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which the kernel brings up to
// date on each read (getrusage's per-thread figures lag by a tick).
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
