package lancerest

import (
	"net/http"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta"
)

type listIndicesRequest struct {
	ID        []string `json:"id"`
	Version   *int64   `json:"version"`
	Branch    *string  `json:"branch"`
	PageToken *string  `json:"page_token"`
	Limit     *int     `json:"limit"`
}

// indexContent is the spec's IndexContent.
type indexContent struct {
	IndexName        string   `json:"index_name"`
	IndexUUID        string   `json:"index_uuid"`
	Columns          []string `json:"columns"`
	Status           string   `json:"status"`
	IndexType        string   `json:"index_type"`
	TypeURL          string   `json:"type_url"`
	NumIndexedRows   uint64   `json:"num_indexed_rows"`
	NumUnindexedRows uint64   `json:"num_unindexed_rows"`
	SizeBytes        *uint64  `json:"size_bytes"`
	NumSegments      int      `json:"num_segments"`
	CreatedAt        *string  `json:"created_at"`
	IndexVersion     int32    `json:"index_version"`
	IndexDetails     *string  `json:"index_details"`
}

// indexBuilt is the status of every index ListTableIndices answers: an
// index is in the manifest once its build committed; a build still running
// is a job (its transaction_id), not an entry here.
const indexBuilt = "SUCCEEDED"

// listTableIndices: POST /v1/table/{id}/index/list, the indices of a
// version (default the latest) in manifest order, paged by name.
func listTableIndices(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req listIndicesRequest
	if e := decodeBody(r, c, &req, &req.ID); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	version, e := versionParam(req.Version)
	if e != nil {
		return e
	}
	limit, after, e := indexPage(c, req)
	if e != nil {
		return e
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	m, e := s.manifestOf(r.Context(), c, t, version)
	if e != nil {
		return e
	}
	start := 0
	if after != "" {
		start = -1
		for i, ix := range m.Indices {
			if ix.Name == after {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return invalid("page_token "+quote(after)+" is not one this server gave for this table",
				"Pass the page_token of the previous answer, or none for the first page; an index dropped meanwhile ends the paging.")
		}
	}
	page := m.Indices[start:]
	resp := struct {
		Indexes   []indexContent `json:"indexes"`
		PageToken *string        `json:"page_token,omitempty"`
	}{Indexes: []indexContent{}}
	if limit > 0 && len(page) > limit {
		page = page[:limit]
		tok := page[len(page)-1].Name
		resp.PageToken = &tok
	}
	for _, ix := range page {
		resp.Indexes = append(resp.Indexes, indexJSON(ix))
	}
	return writeJSON(w, resp)
}

func indexJSON(ix lancemeta.Index) indexContent {
	out := indexContent{
		IndexName: ix.Name, IndexUUID: ix.UUID, Columns: ix.Columns, Status: indexBuilt,
		IndexType: ix.Type, TypeURL: ix.TypeURL, NumIndexedRows: ix.IndexedRows, NumUnindexedRows: ix.UnindexedRows,
		SizeBytes: ix.SizeBytes, NumSegments: ix.Segments, IndexVersion: ix.Version,
	}
	if out.Columns == nil {
		out.Columns = []string{}
	}
	if ix.CreatedAt != nil {
		at := ix.CreatedAt.UTC().Format(time.RFC3339Nano)
		out.CreatedAt = &at
	}
	if ix.Details != nil {
		d := string(ix.Details)
		out.IndexDetails = &d
	}
	return out
}

// indexPage reads limit and page_token from the body or, when it leaves
// them out, the query string (as the other list operations do).
func indexPage(c *call, req listIndicesRequest) (limit int, after string, e *Error) {
	if req.Limit != nil {
		if *req.Limit < 0 {
			return 0, "", invalid("limit must be a non-negative integer", "Pass limit 100, or leave it out for every index.")
		}
		limit = *req.Limit
	} else if limit, e = queryLimit(c); e != nil {
		return 0, "", e
	}
	if req.PageToken != nil {
		after = *req.PageToken
	} else if after, e = queryString(c, "page_token"); e != nil {
		return 0, "", e
	}
	return min(limit, catalog.MaxPageSize), after, nil
}

type indexStatsRequest struct {
	ID        []string `json:"id"`
	Version   *int64   `json:"version"`
	Branch    *string  `json:"branch"`
	IndexName *string  `json:"index_name"`
}

// describeTableIndexStats: POST /v1/table/{id}/index/{index_name}/stats.
func describeTableIndexStats(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req indexStatsRequest
	if e := decodeBody(r, c, &req, &req.ID); e != nil {
		return e
	}
	name := r.PathValue("index")
	if req.IndexName != nil && *req.IndexName != name {
		return invalid("index_name in the body does not match the path", "Send the same index name in the URL and in the body's index_name, or leave it out of the body.")
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	version, e := versionParam(req.Version)
	if e != nil {
		return e
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	m, e := s.manifestOf(r.Context(), c, t, version)
	if e != nil {
		return e
	}
	ix, e := findIndex(m, c, name)
	if e != nil {
		return e
	}
	resp := struct {
		DistanceType     *string `json:"distance_type,omitempty"`
		IndexType        string  `json:"index_type"`
		NumIndexedRows   uint64  `json:"num_indexed_rows"`
		NumUnindexedRows uint64  `json:"num_unindexed_rows"`
		NumIndices       int     `json:"num_indices"`
	}{IndexType: ix.Type, NumIndexedRows: ix.IndexedRows, NumUnindexedRows: ix.UnindexedRows, NumIndices: ix.Segments}
	if ix.DistanceType != "" {
		resp.DistanceType = &ix.DistanceType
	}
	return writeJSON(w, resp)
}

// findIndex is the version's index of that name, or 404 code 6.
func findIndex(m lancemeta.Manifest, c *call, name string) (lancemeta.Index, *Error) {
	for _, ix := range m.Indices {
		if ix.Name == name {
			return ix, nil
		}
	}
	return lancemeta.Index{}, NewError(CodeTableIndexNotFound,
		"table "+quote(joinIdentifier(c.id, c.delim))+" has no index "+quote(name),
		"List the table's indices with ListTableIndices; a build still running is not listed until its job commits.")
}
