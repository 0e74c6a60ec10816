package lancerest

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// tableVersion is the spec's TableVersion, read from the dataset's
// _versions/ directory. The manifest's own timestamp lives inside the
// protobuf and is not read here, so timestamp_millis is left out (the spec
// makes it optional) rather than guessed from the file's mtime.
type tableVersion struct {
	Version      uint64 `json:"version"`
	ManifestPath string `json:"manifest_path"`
	ManifestSize int64  `json:"manifest_size"`
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
// has thousands of versions and each entry is a stat of its manifest.
const maxVersionPage = 1000

// listTableVersions: POST /v1/table/{id}/version/list. Pages by version
// number: page_token is the last version of the previous page.
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
	if e := mainBranchOnly(req.Branch); e != nil {
		return e
	}
	limit := maxVersionPage
	if req.Limit != nil {
		if *req.Limit < 0 {
			return invalid("limit must be a non-negative integer", "Pass limit 100, or leave it out for the default page size.")
		}
		if *req.Limit > 0 {
			limit = min(*req.Limit, maxVersionPage)
		}
	}
	var after *uint64
	if req.PageToken != nil && *req.PageToken != "" {
		v, err := strconv.ParseUint(*req.PageToken, 10, 64)
		if err != nil {
			return invalid("page_token "+quote(*req.PageToken)+" is not one this server gave", "Pass the page_token of the previous answer, or none for the first page.")
		}
		after = &v
	}
	desc := req.Descending != nil && *req.Descending
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	versions, err := s.readVersions(r.Context(), t.Location)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	if desc {
		slices.Reverse(versions)
	}
	out := []tableVersion{}
	for _, v := range versions {
		if after != nil && ((!desc && v.Version <= *after) || (desc && v.Version >= *after)) {
			continue
		}
		out = append(out, v)
	}
	resp := struct {
		Versions  []tableVersion `json:"versions"`
		PageToken *string        `json:"page_token,omitempty"`
	}{Versions: out}
	if len(out) > limit {
		resp.Versions = out[:limit]
		tok := strconv.FormatUint(out[limit-1].Version, 10)
		resp.PageToken = &tok
	}
	return writeJSON(w, resp)
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
	if e := mainBranchOnly(req.Branch); e != nil {
		return e
	}
	if req.Version != nil && *req.Version < 0 {
		return invalid("version must be a non-negative integer", "Pass a version listed by ListTableVersions, or none for the latest.")
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	versions, err := s.readVersions(r.Context(), t.Location)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	for i := len(versions) - 1; i >= 0; i-- {
		v := versions[i]
		if req.Version == nil || v.Version == uint64(*req.Version) {
			return writeJSON(w, struct {
				Version tableVersion `json:"version"`
			}{v})
		}
	}
	what := "has no versions yet (it is only declared)"
	if req.Version != nil {
		what = "has no version " + itoa(*req.Version)
	}
	return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" "+what,
		"List the table's versions with ListTableVersions.")
}

func mainBranchOnly(branch *string) *Error {
	if branch != nil && *branch != "" && *branch != "main" {
		return NewError(CodeUnsupported, "branches are not supported",
			"floe reads the main branch only; leave branch out.")
	}
	return nil
}

// readableTable resolves the call's table for a read.
func (s *Server) readableTable(r *http.Request, c *call) (catalog.Table, *Error) {
	ref, e := tableRef(c.id)
	if e != nil {
		return catalog.Table{}, e
	}
	if e := canRead(c.key, ref.Bucket); e != nil {
		return catalog.Table{}, e
	}
	return s.resolveTable(r.Context(), ref, c.id, c.delim)
}

// readVersions lists the manifests in <location>/_versions through the
// warehouse, oldest first. A dataset not yet written has none.
func (s *Server) readVersions(ctx context.Context, location string) ([]tableVersion, error) {
	loc, err := s.store.Storage().Parse(location)
	if err != nil {
		return nil, err
	}
	dir, err := loc.Join("_versions")
	if err != nil {
		return nil, err
	}
	var out []tableVersion
	err = s.store.Storage().List(ctx, dir, func(en warehouse.Entry) error {
		rel, _ := en.Loc.Rel(dir)
		if strings.Contains(rel, "/") {
			return nil // manifests sit directly in _versions/
		}
		if v, ok := catalog.ParseManifestName(rel); ok {
			out = append(out, tableVersion{Version: v, ManifestPath: en.Loc.String(), ManifestSize: en.Size})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b tableVersion) int { return cmp.Compare(a.Version, b.Version) })
	return out, nil
}
