package icebergrest

import (
	"net/http"

	"github.com/floe/floe/catalog"
)

// loadCredentials serves GET …/tables/{table}/credentials (the spec's
// loadCredentials): the storage credentials LoadTable vends under
// X-Iceberg-Access-Delegation: vended-credentials, for the same table
// location and key, with their expiry (s3.session-token-expires-at-ms) so a
// client refreshes before it. Asking here is the request for them, so no
// header is needed. A warehouse that vends nothing (local disk, or
// --vend-credentials off) answers an empty list, never keys it would not
// put in LoadTable. Keys are cut to what the caller may do to the table;
// a reader of a floe that vends its own static keys gets none, and the
// answer's floe.credentials says why.
func (s *Server) loadCredentials(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	if err := s.checkPlanParam(r, ref); err != nil {
		return err
	}
	res, err := s.tables.LoadTable(r.Context(), ref)
	if err != nil {
		return err
	}
	cfg, creds, ae := s.storageConfig(r, res.Location(), tableRes(ref), true)
	if ae != nil {
		return ae
	}
	if creds == nil {
		creds = []storageCredential{}
	}
	out := map[string]any{"storage-credentials": creds}
	if why := cfg[CredentialsProperty]; why != "" {
		out[CredentialsProperty] = why // a reader of a floe vending static keys: why there are none
	}
	w.Header().Set("Cache-Control", "no-store") // keys: never kept by a cache on the way
	writeJSON(w, http.StatusOK, out)
	return nil
}

// typeNoSuchPlanID is the spec's error type for a plan id the server does
// not know (expired, cancelled or never issued).
const typeNoSuchPlanID = "NoSuchPlanIdException"

// checkPlanParam refuses a planId query parameter that names no live plan
// of this table; the credentials of a plan are the table's.
func (s *Server) checkPlanParam(r *http.Request, ref catalog.TableRef) error {
	id := r.URL.Query().Get("planId")
	if id == "" {
		return nil
	}
	if err := s.plans.Known(r.Context(), ref, id); err != nil {
		return planError(nil, err)
	}
	return nil
}
