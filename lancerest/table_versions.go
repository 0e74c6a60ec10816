package lancerest

import (
	"context"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancecommit"
)

// tableVersion is the spec's TableVersion. manifest_path is in the form
// Lance clients name files by (the object-store path: the S3 key, or the
// local path without its leading slash), which a managed client reads the
// manifest from. timestamp_millis is the commit's time for versions
// committed through floe; for versions only listed from _versions/ it is
// left out (the spec makes it optional) rather than guessed from a file's
// modification time.
type tableVersion struct {
	Version         uint64  `json:"version"`
	ManifestPath    string  `json:"manifest_path"`
	ManifestSize    int64   `json:"manifest_size"`
	ETag            *string `json:"e_tag,omitempty"`
	TimestampMillis *int64  `json:"timestamp_millis,omitempty"`
}

func versionJSON(v lancecommit.Version) tableVersion {
	out := tableVersion{Version: v.Version, ManifestPath: v.Manifest.ObjectPath(), ManifestSize: v.Size}
	if v.ETag != "" {
		out.ETag = &v.ETag
	}
	if !v.Time.IsZero() {
		ms := v.Time.UnixMilli()
		out.TimestampMillis = &ms
	}
	return out
}

type listVersionsRequest struct {
	ID         []string `json:"id"`
	Branch     *string  `json:"branch"`
	Descending *bool    `json:"descending"`
	Limit      *int     `json:"limit"`
	PageToken  *string  `json:"page_token"`
}

type describeVersionRequest struct {
	ID      []string `json:"id"`
	Branch  *string  `json:"branch"`
	Version *int64   `json:"version"`
}

// maxVersionPage bounds one ListTableVersions page: a long-lived dataset
// has thousands of versions.
const maxVersionPage = catalog.MaxPageSize

// listTableVersions: POST /v1/table/{id}/version/list. The spec's REST
// binding passes page_token, limit and descending as query parameters
// (LanceDB 0.39 sends them there); a body carrying them is accepted too, and
// a value in the body wins. Pages by version number: page_token is the last
// version of the previous page.
func listTableVersions(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req listVersionsRequest
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &req); e != nil {
			return e
		}
		return checkBodyID(req.ID, c.id)
	}); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	q, e := versionQuery(c, req)
	if e != nil {
		return e
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	managed, e := s.managed(r.Context(), t)
	if e != nil {
		return e
	}
	vs, next, err := s.commits.List(r.Context(), t, managed, q)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	resp := struct {
		Versions  []tableVersion `json:"versions"`
		PageToken *string        `json:"page_token,omitempty"`
	}{Versions: make([]tableVersion, len(vs))}
	for i, v := range vs {
		resp.Versions[i] = versionJSON(v)
	}
	if next > 0 {
		tok := strconv.FormatUint(next, 10)
		resp.PageToken = &tok
	}
	return writeJSON(w, resp)
}

// versionQuery reads limit, page_token and descending from the body or, when
// the body leaves them out, the query string.
func versionQuery(c *call, req listVersionsRequest) (lancecommit.Query, *Error) {
	var q lancecommit.Query
	limit := 0
	if req.Limit != nil {
		limit = *req.Limit
		if limit < 0 {
			return q, invalid("limit must be a non-negative integer", "Pass limit 100, or leave it out for the default page size.")
		}
	} else {
		n, e := queryLimit(c)
		if e != nil {
			return q, e
		}
		limit = n
	}
	q.Limit = min(limit, maxVersionPage)
	token := ""
	if req.PageToken != nil {
		token = *req.PageToken
	} else {
		t, e := queryString(c, "page_token")
		if e != nil {
			return q, e
		}
		token = t
	}
	if token != "" {
		v, err := strconv.ParseUint(token, 10, 64)
		if err != nil || v == 0 {
			return q, invalid("page_token "+quote(token)+" is not one this server gave", "Pass the page_token of the previous answer, or none for the first page.")
		}
		q.After = v
	}
	if req.Descending != nil {
		q.Descending = *req.Descending
	} else {
		d, e := queryBool(c, "descending", false)
		if e != nil {
			return q, e
		}
		q.Descending = d
	}
	return q, nil
}

// describeTableVersion: POST /v1/table/{id}/version/describe; without a
// version, the latest.
func describeTableVersion(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req describeVersionRequest
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &req); e != nil {
			return e
		}
		return checkBodyID(req.ID, c.id)
	}); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	if req.Version != nil && *req.Version < 0 {
		return invalid("version must be a non-negative integer", "Pass a version listed by ListTableVersions, or none for the latest.")
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	managed, e := s.managed(r.Context(), t)
	if e != nil {
		return e
	}
	var want uint64
	if req.Version != nil {
		want = uint64(*req.Version)
	}
	v, found, err := s.commits.Describe(r.Context(), t, managed, want)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	if !found {
		what := "has no versions yet (it is only declared)"
		if want != 0 {
			what = "has no version " + itoa(int64(want))
		}
		return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" "+what,
			"List the table's versions with ListTableVersions.")
	}
	return writeJSON(w, struct {
		Version tableVersion `json:"version"`
	}{versionJSON(v)})
}

// branchParam refuses a branch other than main, from the body or the
// query: floe serves a table's main branch only.
func branchParam(c *call, body *string) *Error {
	if e := mainBranchOnly(body); e != nil {
		return e
	}
	q, e := queryString(c, "branch")
	if e != nil {
		return e
	}
	return mainBranchOnly(&q)
}

func mainBranchOnly(branch *string) *Error {
	if branch != nil && *branch != "" && *branch != "main" {
		return NewError(CodeUnsupported, "branch "+quote(*branch)+" is not served",
			"floe serves a table's main branch only; leave branch out.")
	}
	return nil
}

// managed reports whether the table's bucket has managed versioning on.
func (s *Server) managed(ctx context.Context, t catalog.Table) (bool, *Error) {
	on, err := s.commits.Managed(ctx, t)
	if err != nil {
		return false, asError(err, CodeTableNotFound)
	}
	return on, nil
}

// readableTable resolves the call's table for a read.
func (s *Server) readableTable(r *http.Request, c *call) (catalog.Table, *Error) {
	ref, e := tableRef(c.id)
	if e != nil {
		return catalog.Table{}, e
	}
	if e := c.require(identity.Read, tableResource(ref)); e != nil {
		return catalog.Table{}, e
	}
	return s.resolveTable(r.Context(), ref, c.id, c.delim)
}
