package lancerest

import (
	"context"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
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
	res := tableResource(ref)
	if e := c.require(identity.Read, res); e != nil {
		return e
	}
	ctx := r.Context()
	t, e := s.resolveTable(ctx, ref, c.id, c.delim)
	if e != nil {
		return e
	}
	opts, withheld, e := s.storageOptions(ctx, t, c.vendAccess(res), vend)
	if e != nil {
		return e
	}
	resp := describeTableResponse{Location: t.Location, StorageOptions: opts}
	if withURI {
		resp.TableURI = tableURI(t.Location)
	}
	managed, e := s.managed(ctx, t)
	if e != nil {
		return e
	}
	resp.ManagedVersioning = managed
	want, pinned, e := s.pinnedVersion(ctx, t, c, req)
	if e != nil {
		return e
	}
	if pinned || detailed || checkDeclared || managed {
		latest, found, e := s.latestVersion(ctx, t, managed, want)
		if e != nil {
			return e
		}
		if pinned && !found {
			return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+itoa(int64(want)),
				"Leave version out for the latest, or pick one listed by ListTableVersions.")
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
		}
		// A managed table always answers the catalog's latest version: it
		// is the commit authority, and clients read that version.
		if (detailed || managed) && latest > 0 {
			resp.Version = &latest
		}
		if pinned {
			v := want
			resp.Version = &v
		}
		if detailed && latest > 0 {
			s.detailedMetadata(ctx, t, want, &resp)
		}
	}
	if withheld != "" {
		if resp.Properties == nil {
			resp.Properties = map[string]string{}
		}
		resp.Properties[CredentialsProperty] = withheld
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
	if e := c.require(identity.Read, tableResource(ref)); e != nil {
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

// pinnedVersion is the version a DescribeTable asks for: its version, or
// the version its tag names (an unknown tag is 404 code 8, never the latest
// silently); pinned is false when it asks for the latest. A branch other
// than main is refused: floe serves main only.
func (s *Server) pinnedVersion(ctx context.Context, t catalog.Table, c *call, req describeTableRequest) (uint64, bool, *Error) {
	if e := branchParam(c, req.Branch); e != nil {
		return 0, false, e
	}
	if req.Tag != nil && req.Version != nil {
		return 0, false, invalid("version and tag name two versions", "Send either version or tag, not both.")
	}
	if req.Version != nil {
		return uint64(*req.Version), true, nil
	}
	if req.Tag == nil {
		return 0, false, nil
	}
	if !tagName.MatchString(*req.Tag) {
		return 0, false, invalid("tag "+quote(*req.Tag)+" is not a valid tag name", "Pass a tag listed by ListTableTags.")
	}
	tf, err := s.commits.Tag(ctx, t, *req.Tag)
	if err != nil {
		return 0, false, tagError(c, *req.Tag, nil, err)
	}
	if tf.Branch != nil && *tf.Branch != "" && *tf.Branch != "main" {
		return 0, false, NewError(CodeUnsupported, "tag "+quote(*req.Tag)+" names a version of branch "+quote(*tf.Branch),
			"floe serves a table's main branch only.")
	}
	return tf.Version, true, nil
}

// latestVersion is a table's latest version (0: none yet) and whether want
// (if non-zero) is one of its versions: from the catalog's record for a
// managed table, else from the _versions/ listing.
func (s *Server) latestVersion(ctx context.Context, t catalog.Table, managed bool, want uint64) (uint64, bool, *Error) {
	if !managed {
		latest, found := s.versionScan(ctx, t.Location, want)
		return latest, found, nil
	}
	v, ok, err := s.commits.Describe(ctx, t, true, 0)
	if err != nil {
		return 0, false, asError(err, CodeTableNotFound)
	}
	if !ok {
		return 0, false, nil
	}
	if want == 0 || want == v.Version {
		return v.Version, want != 0, nil
	}
	_, found, err := s.commits.Describe(ctx, t, true, want)
	if err != nil {
		return 0, false, asError(err, CodeTableNotFound)
	}
	return v.Version, found, nil
}
