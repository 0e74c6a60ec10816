package lancerest

import (
	"context"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// storageOptions are the options a Lance SDK needs to open a table's
// location. A local warehouse needs none; an S3 warehouse will add endpoint,
// region, allow_http and (with vend_credentials) keys plus expires_at_millis
// here, in this one place.
func storageOptions(t catalog.Table) map[string]string {
	return emptyProps
}

// tableURI is the location as a complete URI: stored locations are
// canonical warehouse locations, already URIs.
func tableURI(location string) string {
	if loc, err := warehouse.Parse(location); err == nil {
		return loc.String()
	}
	return location
}

// versionScan is the catalog's Lance version read: the latest version under
// <location>/_versions and whether want (if non-zero) is among them.
func (s *Server) versionScan(ctx context.Context, location string, want uint64) (latest uint64, found bool) {
	return s.store.LanceVersion(ctx, location, want)
}

// observeCreated records declared → created once the SDK has written the
// dataset, so the catalog tells the same story as storage. It reports
// whether the table has data.
func (s *Server) observeCreated(ctx context.Context, t catalog.Table) bool {
	if t.State == catalog.StateCreated {
		return true
	}
	if v, _ := s.versionScan(ctx, t.Location, 0); v == 0 {
		return false
	}
	if t.State == catalog.StateDeclared {
		if err := s.store.SetLanceState(ctx, t.ID, catalog.StateCreated); err != nil {
			s.log.Warn("could not record table as created", "table_id", t.ID, "err", err)
		}
	}
	return true
}
