package icebergrest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// indexPath lists every Iceberg table an API key may read, across buckets,
// with floe's table ids. It is floe's own extension (the Iceberg REST spec
// has no cross-warehouse listing): maintenance workers need it to sweep
// tables and to name them by the id observations and jobs carry.
const indexPath = "GET /v1/floe/tables"

// tableIndexEntry is one table in the index.
type tableIndexEntry struct {
	ID               string            `json:"id"`
	Bucket           string            `json:"bucket"`
	Namespace        []string          `json:"namespace"`
	Name             string            `json:"name"`
	Location         string            `json:"location"`
	MetadataLocation string            `json:"metadata-location"`
	Properties       map[string]string `json:"properties,omitempty"`
}

type tableIndexPage struct {
	Tables        []tableIndexEntry `json:"tables"`
	NextPageToken string            `json:"next-page-token,omitempty"`
}

// indexTables answers GET /v1/floe/tables?pageToken=…&pageSize=…: the
// tables the caller may read. One who may read everything pages through
// the catalog as it is; any other looks only in the buckets its grants lie
// in and names its next page by the last table it was shown, so a token
// never carries a name it may not read.
func (s *Server) indexTables(w http.ResponseWriter, r *http.Request) {
	rt, err := s.loadRights(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	all, buckets := rt.Children(identity.Resource{})
	if all {
		buckets = nil // every bucket
	} else if buckets == nil {
		buckets = []string{} // none
	}
	limit := 0
	if v := r.URL.Query().Get("pageSize"); v != "" {
		n, ok := parsePositive(v)
		if !ok {
			s.writeError(w, r, badRequest("pageSize %q must be a positive whole number", v))
			return
		}
		limit = n
	}
	want := limit
	if want <= 0 {
		want = catalog.DefaultPageSize
	}
	want = min(want, catalog.MaxPageSize)
	page := tableIndexPage{Tables: []tableIndexEntry{}}
	cursor := r.URL.Query().Get("pageToken")
	for {
		items, next, err := s.store.ListAllTables(r.Context(), catalog.FormatIceberg, buckets, cursor, limit)
		if err != nil {
			s.writeError(w, r, fromCatalog(err, typeNotFound))
			return
		}
		for i, t := range items {
			if !all && !rt.VisibleTable(t.Bucket, t.Namespace, t.Name) {
				continue
			}
			if t.MetadataLocation != "" { // declared, never committed: nothing to maintain
				page.Tables = append(page.Tables, tableIndexEntry{ID: t.ID, Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name,
					Location: t.Location, MetadataLocation: t.MetadataLocation, Properties: t.Properties})
			}
			if !all && len(page.Tables) == want {
				if i < len(items)-1 || next != "" {
					page.NextPageToken = catalog.TableCursor(t)
				}
				writeJSON(w, http.StatusOK, page)
				return
			}
		}
		if all || next == "" {
			page.NextPageToken = next
			writeJSON(w, http.StatusOK, page)
			return
		}
		cursor = next
	}
}

func parsePositive(s string) (int, bool) {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<20 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}
