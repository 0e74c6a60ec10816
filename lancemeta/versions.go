package lancemeta

import (
	"context"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// MaxListedVersions bounds the versions Versions returns (the newest): a
// picker of more says nothing a version number typed into the URL does not.
const MaxListedVersions = 500

// Versions lists the versions whose manifests sit in the dataset's
// _versions/ at location, newest first, at most MaxListedVersions; one
// listing, no manifest read.
func Versions(ctx context.Context, wh *warehouse.Warehouse, location string) ([]uint64, error) {
	loc, err := wh.Parse(location)
	if err != nil {
		return nil, err
	}
	dir, err := loc.Join("_versions")
	if err != nil {
		return nil, err
	}
	var out []uint64
	err = wh.List(ctx, dir, func(e warehouse.Entry) error {
		rel, _ := e.Loc.Rel(dir)
		if strings.Contains(rel, "/") {
			return nil
		}
		if v, ok := catalog.ParseManifestName(rel); ok {
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	slices.Reverse(out)
	out = slices.Compact(out)
	return out[:min(len(out), MaxListedVersions)], nil
}
