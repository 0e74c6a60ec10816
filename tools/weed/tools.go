//go:build tools

// Package weed pins the SeaweedFS server that floe's tests use as a real
// S3-compatible store. It is built by scripts/weed-build.sh, never linked
// into floe itself.
package weed

import _ "github.com/seaweedfs/seaweedfs/weed"
