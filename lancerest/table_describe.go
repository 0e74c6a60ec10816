package lancerest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta"
)

type describeTableResponse struct {
	Table             string            `json:"table,omitempty"`
	Namespace         []string          `json:"namespace,omitempty"`
	Version           *uint64           `json:"version,omitempty"`
	Location          string            `json:"location"`
	TableURI          string            `json:"table_uri,omitempty"`
	StorageOptions    map[string]string `json:"storage_options"`
	Schema            *lancemeta.Schema `json:"schema,omitempty"`
	Stats             *tableStats       `json:"stats,omitempty"`
	Properties        map[string]string `json:"properties"` // null unless detailed: the catalog keeps no table properties
	ManagedVersioning bool              `json:"managed_versioning"`
	IsOnlyDeclared    *bool             `json:"is_only_declared,omitempty"`
}

// describeTable: POST /v1/table/{id}/describe. The hot path is one catalog
// read; storage is listed only when version, load_detailed_metadata or
// check_declared ask for it.
func describeTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req describeTableRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeDescribeTable(b, c.id); return }); e != nil {
		return e
	}
	withURI, e := flag(c, "with_table_uri", req.WithTableURI)
	if e != nil {
		return e
	}
	detailed, e := flag(c, "load_detailed_metadata", req.LoadDetailedMetadata)
	if e != nil {
		return e
	}
	checkDeclared, e := flag(c, "check_declared", req.CheckDeclared)
	if e != nil {
		return e
	}
	vend, e := vendFlag(c, req.VendCredentials)
	if e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := canRead(c.key, ref.Bucket); e != nil {
		return e
	}
	ctx := r.Context()
	t, e := s.resolveTable(ctx, ref, c.id, c.delim)
	if e != nil {
		return e
	}
	opts, e := s.storageOptions(ctx, t, vend)
	if e != nil {
		return e
	}
	resp := describeTableResponse{Location: t.Location, StorageOptions: opts}
	if withURI {
		resp.TableURI = tableURI(t.Location)
	}
	if req.Version != nil || detailed || checkDeclared {
		var want uint64
		if req.Version != nil {
			want = uint64(*req.Version)
		}
		latest, found := s.versionScan(ctx, t.Location, want)
		if req.Version != nil && !found {
			return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+itoa(*req.Version),
				"Leave version out for the latest, or pick one listed in the dataset's _versions/.")
		}
		if latest > 0 && t.State != catalog.StateCreated {
			s.observeCreated(ctx, t)
		}
		if detailed || checkDeclared {
			only := latest == 0
			resp.IsOnlyDeclared = &only
		}
		if detailed {
			resp.Table = ref.Name
			resp.Namespace = c.id[:len(c.id)-1]
			if latest > 0 {
				resp.Version = &latest
			}
		}
		if req.Version != nil {
			v := want
			resp.Version = &v
		}
		if detailed && latest > 0 {
			s.detailedMetadata(ctx, t, want, &resp)
		}
	}
	// The catalog's table id rides in a header (the spec's body has no
	// field for it), so workers key observations and jobs by the same id
	// the console uses, at any namespace depth.
	w.Header().Set(TableIDHeader, t.ID)
	return writeJSON(w, resp)
}

// TableIDHeader carries floe's table id on DescribeTable answers.
const TableIDHeader = "X-Floe-Table-Id"

// tableExists: POST /v1/table/{id}/exists; 200 without a body, or the
// spec's ErrorResponse (404 code 4 when it does not exist).
func tableExists(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := canRead(c.key, ref.Bucket); e != nil {
		return e
	}
	if _, e := s.resolveTable(r.Context(), ref, c.id, c.delim); e != nil {
		return e
	}
	return writeEmpty(w)
}

// flag is true when the query or the body sets it.
func flag(c *call, name string, body *bool) (bool, *Error) {
	q, e := queryBool(c, name, false)
	if e != nil {
		return false, e
	}
	return q || (body != nil && *body), nil
}
