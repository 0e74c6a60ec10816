//go:build !unix

package connlimit

// FileLimit on systems without RLIMIT_NOFILE: a budget as for a common
// Unix default, so the limits still split something.
func FileLimit() (int, error) { return 8192, nil }
