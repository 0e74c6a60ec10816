//go:build unix

package connlimit

import "syscall"

// FileLimit is the process's open-file limit: RLIMIT_NOFILE's soft value,
// which the Go runtime raises to the hard limit at start.
func FileLimit() (int, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur > 1<<30 { // RLIM_INFINITY or near it: a budget no machine reaches
		return 1 << 30, nil
	}
	return int(r.Cur), nil
}
