package lancerest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta"
)

// The figures of GetTableStats, CountTableRows, ListTableIndices and
// DescribeTableIndexStats come from the version's manifest, read in Go
// (lancemeta), and are the figures LanceDB 0.39's stats(), countRows(),
// listIndices() and indexStats() compute for the same version: no worker
// is asked, so they cost one manifest read.

type statsRequest struct {
	ID     []string `json:"id"`
	Branch *string  `json:"branch"`
}

// getTableStatsResponse is the spec's GetTableStatsResponse.
type getTableStatsResponse struct {
	TotalBytes    uint64        `json:"total_bytes"`
	NumRows       uint64        `json:"num_rows"`
	NumIndices    int           `json:"num_indices"`
	FragmentStats fragmentStats `json:"fragment_stats"`
}

// fragmentStats is the spec's FragmentStats.
type fragmentStats struct {
	NumFragments      int             `json:"num_fragments"`
	NumSmallFragments int             `json:"num_small_fragments"`
	Lengths           fragmentSummary `json:"lengths"`
}

// fragmentSummary is the spec's FragmentSummary.
type fragmentSummary struct {
	Min  uint64 `json:"min"`
	Max  uint64 `json:"max"`
	Mean uint64 `json:"mean"`
	P25  uint64 `json:"p25"`
	P50  uint64 `json:"p50"`
	P75  uint64 `json:"p75"`
	P99  uint64 `json:"p99"`
}

// getTableStats: POST /v1/table/{id}/stats, the latest version's figures.
func getTableStats(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req statsRequest
	if e := decodeBody(r, c, &req, &req.ID); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return e
	}
	m, e := s.manifestOf(r.Context(), c, t, 0)
	if e != nil {
		return e
	}
	st := m.Stats()
	f := st.Fragments
	return writeJSON(w, getTableStatsResponse{
		TotalBytes: st.TotalBytes, NumRows: st.Rows, NumIndices: st.Indices,
		FragmentStats: fragmentStats{NumFragments: f.Count, NumSmallFragments: f.Small, Lengths: fragmentSummary{
			Min: f.Min, Max: f.Max, Mean: f.Mean, P25: f.P25, P50: f.P50, P75: f.P75, P99: f.P99,
		}},
	})
}

type countRowsRequest struct {
	ID        []string `json:"id"`
	Version   *int64   `json:"version"`
	Branch    *string  `json:"branch"`
	Predicate *string  `json:"predicate"`
}

// countTableRows: POST /v1/table/{id}/count_rows. The spec's REST binding
// answers a bare integer. A predicate needs a scan of the data, which floe
// does not do: it is refused as Unsupported rather than ignored.
func countTableRows(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req countRowsRequest
	if e := decodeBody(r, c, &req, &req.ID); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	if req.Predicate != nil && *req.Predicate != "" {
		return NewError(CodeUnsupported, "count_rows with a predicate is not served",
			"floe counts rows from the manifest; counting the rows a predicate matches needs a scan: run countRows(filter) with the Lance SDK at the location DescribeTable returns.")
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
	w.Header().Set("Content-Type", "application/json")
	w.Write(strconv.AppendUint(nil, m.Rows(), 10))
	return nil
}

// versionParam checks an optional version of a request body (0 and absent
// both mean the latest, as the spec says).
func versionParam(v *int64) (uint64, *Error) {
	if v == nil {
		return 0, nil
	}
	if *v < 0 {
		return 0, invalid("version must be a non-negative integer", "Pass a version listed by ListTableVersions, or none for the latest.")
	}
	return uint64(*v), nil
}

// decodeBody reads a JSON body into v and checks its id (at *id) against
// the path's.
func decodeBody(r *http.Request, c *call, v any, id *[]string) *Error {
	return withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, v); e != nil {
			return e
		}
		return checkBodyID(*id, c.id)
	})
}

// manifestOf reads version (0: the latest) of t's manifest. A managed
// table's latest version is the catalog's record (floe is its commit
// authority); any other's is the newest in _versions/. A table only
// declared has no manifest yet and reads as an empty one (no rows, no
// fragments, no indices); a version that is not there is 404 code 11.
func (s *Server) manifestOf(ctx context.Context, c *call, t catalog.Table, version uint64) (lancemeta.Manifest, *Error) {
	managed, e := s.managed(ctx, t)
	if e != nil {
		return lancemeta.Manifest{}, e
	}
	want := version
	if managed {
		latest, found, e := s.latestVersion(ctx, t, true, version)
		if e != nil {
			return lancemeta.Manifest{}, e
		}
		if latest == 0 && version == 0 {
			return lancemeta.Manifest{}, nil
		}
		if version != 0 && !found {
			return lancemeta.Manifest{}, versionNotFound(c, version)
		}
		if want == 0 {
			want = latest
		}
	}
	m, found, err := lancemeta.Version(ctx, s.store.Storage(), t.Location, want)
	switch {
	case errors.Is(err, lancemeta.ErrCorrupt):
		return lancemeta.Manifest{}, &Error{Code: CodeInternal, Msg: "the table's manifest cannot be read",
			Detail: "The manifest of this version is damaged or of a Lance format floe does not read; the server log has the cause under this request id.", cause: err}
	case err != nil:
		return lancemeta.Manifest{}, asError(err, CodeTableNotFound)
	case !found && want != 0:
		return lancemeta.Manifest{}, versionNotFound(c, want)
	}
	return m, nil
}

func versionNotFound(c *call, v uint64) *Error {
	return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+strconv.FormatUint(v, 10),
		"Leave version out for the latest, or pick one listed by ListTableVersions.")
}
