package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseManifestName returns the version a manifest file name records.
func ParseManifestName(name string) (uint64, bool) {
	v, _, ok := parseManifestName(name)
	return v, ok
}

// parseManifestName also says whether the name follows Lance's V2 scheme
// (zero-padded u64::MAX - version, 20 digits) rather than V1 ({version}).
func parseManifestName(name string) (version uint64, v2, ok bool) {
	stem, ok := strings.CutSuffix(name, ".manifest")
	if !ok || stem == "" {
		return 0, false, false
	}
	n, err := strconv.ParseUint(stem, 10, 64)
	if err != nil {
		return 0, false, false
	}
	if len(stem) == 20 { // V2: zero-padded inverted version
		return math.MaxUint64 - n, true, true
	}
	return n, false, true
}

// ManifestName is the final file name of version v in _versions/: V2's
// zero-padded inverted number, or V1's plain one.
func ManifestName(v uint64, v2 bool) string {
	if v2 {
		return fmt.Sprintf("%020d.manifest", uint64(math.MaxUint64)-v)
	}
	return strconv.FormatUint(v, 10) + ".manifest"
}

// ParseStagedManifestName reads a manifest name as Lance writes it before
// a commit: the final name plus "-<suffix>" (a UUID), as in
// 18446744073709551614.manifest-5c0e…; a final name is accepted too
// (staged false).
func ParseStagedManifestName(name string) (version uint64, v2, staged, ok bool) {
	final, suffix, cut := strings.Cut(name, ".manifest-")
	if !cut {
		version, v2, ok = parseManifestName(name)
		return version, v2, false, ok
	}
	if suffix == "" || strings.ContainsAny(suffix, "/\\") {
		return 0, false, false, false
	}
	version, v2, ok = parseManifestName(final + ".manifest")
	return version, v2, true, ok
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
