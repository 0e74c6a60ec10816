// Package s3test starts a real S3-compatible store (SeaweedFS `weed mini`)
// on loopback for tests. It is not a fake: requests go over HTTP with SigV4
// to a store that keeps objects on disk, honours conditional PUTs and can be
// stopped and started again to test faults.
//
// A test package uses it through [Main] in its TestMain and [Require] in
// each test; the store starts on first use and stops when the package's
// tests end.
package s3test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WeedVersion is the SeaweedFS module version tools/weed/go.mod pins; the
// binary scripts/weed-build.sh builds is cached under this name. A test
// checks the two agree.
const WeedVersion = "v0.0.0-20261109003541-7506e5f91cd6"

// errNoWeed says the binary is missing and how to get it.
var errNoWeed = errors.New("the SeaweedFS test store is not built: run scripts/weed-build.sh " +
	"(about 10 minutes the first time), or point FLOE_WEED at a weed binary")

// weedPath finds the weed binary: $FLOE_WEED, else the cache that
// scripts/weed-build.sh fills (${FLOE_CACHE:-$HOME/.cache/floe}).
func weedPath() (string, error) {
	if p := os.Getenv("FLOE_WEED"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("FLOE_WEED=%s: %w", p, err)
		}
		return p, nil
	}
	cache := os.Getenv("FLOE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errNoWeed
		}
		cache = filepath.Join(home, ".cache", "floe")
	}
	p := filepath.Join(cache, "weed-"+WeedVersion)
	if _, err := os.Stat(p); err != nil {
		return "", errNoWeed
	}
	return p, nil
}
