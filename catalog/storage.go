package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/floe/floe/warehouse"
)

// Marker files of the Lance directory catalog. floe writes .lance-reserved
// when it declares a table (the declare creates the table's directory
// anyway). It never writes .lance-deregistered: deregister leaves a table's
// objects as they were, and the state is the catalog's. A revive removes
// one an older floe wrote.
const (
	markerReserved     = ".lance-reserved"
	markerDeregistered = ".lance-deregistered"
	versionsDir        = "_versions"
)

// Storage is the warehouse the catalog keeps table data in; Lance REST,
// Iceberg and the console read and write table files through it too.
func (s *Store) Storage() *warehouse.Warehouse { return s.wh }

// BucketRoot is the bucket's directory in the warehouse: every table of the
// bucket lives inside it.
func (s *Store) BucketRoot(bucket string) warehouse.Location {
	return join(s.wh.Root(), bucket)
}

// join appends names the catalog has already validated (bucket, namespace
// and table names); a name that is not one segment gives the zero
// Location, which every warehouse operation refuses.
func join(base warehouse.Location, parts ...string) warehouse.Location {
	l, err := base.Join(parts...)
	if err != nil {
		return warehouse.Location{}
	}
	return l
}

// storageErr turns a warehouse failure into a catalog error: a refused
// location (bad, outside, through a link) is the caller's to fix, anything
// else is a storage fault.
func storageErr(what string, err error) error {
	if warehouse.IsClientError(err) {
		return Invalid("location", err.Error())
	}
	return fmt.Errorf("catalog: %s: %w", what, err)
}

// resolveLocation parses a caller-given location into canonical form; ""
// stays the zero Location (use the default).
func resolveLocation(raw string) (warehouse.Location, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return warehouse.Location{}, nil
	}
	loc, err := warehouse.Parse(raw)
	if err != nil {
		return warehouse.Location{}, Invalid("location", err.Error())
	}
	return loc, nil
}

// checkPlacement refuses a location that cannot hold one table of bucket:
// outside the bucket's directory, or the bucket or a namespace directory.
func (s *Store) checkPlacement(bucket string, loc warehouse.Location) error {
	if err := warehouse.CheckTablePlacement(s.BucketRoot(bucket), loc); err != nil {
		return Invalid("location", err.Error())
	}
	return nil
}

// LanceVersion lists <location>/_versions and returns the latest version a
// manifest records and whether want (if non-zero) is among them; 0 means no
// dataset has been written there (or the location cannot be read).
func (s *Store) LanceVersion(ctx context.Context, location string, want uint64) (latest uint64, found bool) {
	loc, err := warehouse.Parse(location)
	if err != nil {
		return 0, false
	}
	dir := join(loc, versionsDir)
	_ = s.wh.List(ctx, dir, func(e warehouse.Entry) error {
		rel, _ := e.Loc.Rel(dir)
		if strings.Contains(rel, "/") {
			return nil // manifests sit directly in _versions/
		}
		v, ok := ParseManifestName(rel)
		if !ok {
			return nil
		}
		latest = max(latest, v)
		if want != 0 && v == want {
			found = true
		}
		return nil
	})
	return latest, found
}
