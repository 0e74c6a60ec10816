package iceworker

import (
	"os"
	"runtime/debug"
)

// processMemoryLimit is the soft limit of Go memory for a worker process
// (heap, stacks and runtime; not the binary's own pages, ≈60 MB more in
// RSS). A compaction holds ≈140 MB live at its peak (a decoded input
// page, a row group being written, zstd windows); without a limit the
// collector lets garbage grow to twice the live heap, and the issue bounds
// the worker's RSS at 300 MB while it compacts a 1 GiB table.
const processMemoryLimit = 200 << 20

// LimitProcessMemory sets the worker process's soft memory limit unless
// GOMEMLIMIT already chose one. Call it from a process that runs only the
// worker (`floe worker iceberg`), never from one that serves the console.
func LimitProcessMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(processMemoryLimit)
}
