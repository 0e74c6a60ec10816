//go:build !linux

package icebergrest

import "time"

// threadCPU is not measured here: the cpu-* benchmark figures are left out.
func threadCPU() time.Duration { return 0 }
