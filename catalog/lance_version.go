package catalog

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LanceVersion lists <location>/_versions and returns the latest version a
// manifest records and whether want (if non-zero) is among them; 0 means no
// dataset has been written there. Manifest names are V1 "{v}.manifest" or
// V2 "{u64::MAX - v:020}.manifest" (always 20 digits).
func LanceVersion(location string, want uint64) (latest uint64, found bool) {
	f, err := os.Open(filepath.Join(location, "_versions"))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	for _, n := range names {
		v, ok := ParseManifestName(n)
		if !ok {
			continue
		}
		latest = max(latest, v)
		if want != 0 && v == want {
			found = true
		}
	}
	return latest, found
}

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
