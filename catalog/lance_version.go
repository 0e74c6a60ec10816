package catalog

import (
	"math"
	"strconv"
	"strings"
)

// ParseManifestName returns the version a manifest file name records.
func ParseManifestName(name string) (uint64, bool) {
	stem, ok := strings.CutSuffix(name, ".manifest")
	if !ok || stem == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(stem, 10, 64)
	if err != nil {
		return 0, false
	}
	if len(stem) == 20 { // V2: zero-padded inverted version
		return math.MaxUint64 - n, true
	}
	return n, true
}
