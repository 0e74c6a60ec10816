package lancerest

import (
	"context"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// StorageOptioner is the warehouse's answer to "what does a client need to
// open this location": endpoint, region, allow_http, path style and, when
// vended, keys that may do what access says and expires_at_millis
// (warehouse.ClientAccess). withheld says why no keys came when floe had
// some but could not cut them to access.
type StorageOptioner interface {
	LanceStorageOptions(ctx context.Context, location string, access warehouse.Access, vend *bool) (opts map[string]string, withheld string, err error)
}

// CredentialsProperty is the DescribeTable property that says why the
// answer carries no storage keys (a reader of a floe vending its own
// static keys).
const CredentialsProperty = "floe.credentials"

// vendFlag is the request's vend_credentials from the query or the body:
// nil when neither says, so floe's --vend-credentials decides.
func vendFlag(c *call, body *bool) (*bool, *Error) {
	if c.query("vend_credentials") != "" {
		v, e := queryBool(c, "vend_credentials", false)
		if e != nil {
			return nil, e
		}
		return &v, nil
	}
	return body, nil
}

// storageOptions are the options a Lance SDK needs to open a table's
// location, in this one place, with keys that may do what access says. A
// local warehouse needs none. vend is the request's vend_credentials (nil:
// floe's --vend-credentials decides). withheld is the sentence for
// CredentialsProperty when keys were withheld.
func (s *Server) storageOptions(ctx context.Context, t catalog.Table, access warehouse.Access, vend *bool) (opts map[string]string, withheld string, e *Error) {
	if s.storage == nil {
		return emptyProps, "", nil
	}
	o, withheld, err := s.storage.LanceStorageOptions(ctx, t.Location, access, vend)
	if err != nil {
		s.log.Warn("storage options", "table", t.ID, "err", err)
		return nil, "", NewError(CodeServiceUnavailable, "storage credentials are unavailable",
			"floe could not obtain credentials for the table's object store; try again, or ask the operator to check floe's storage configuration.")
	}
	if o == nil {
		return emptyProps, withheld, nil
	}
	return o, withheld, nil
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
