package icebergrest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
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

// indexTables answers GET /v1/floe/tables?pageToken=…&pageSize=….
func (s *Server) indexTables(w http.ResponseWriter, r *http.Request) {
	scope, err := s.keyScope(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var buckets []string
	if scope != "" {
		buckets = []string{scope}
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
	items, next, err := s.store.ListAllTables(r.Context(), catalog.FormatIceberg, buckets, r.URL.Query().Get("pageToken"), limit)
	if err != nil {
		s.writeError(w, r, fromCatalog(err, typeNotFound))
		return
	}
	page := tableIndexPage{Tables: make([]tableIndexEntry, 0, len(items)), NextPageToken: next}
	for _, t := range items {
		if t.MetadataLocation == "" {
			continue // declared, never committed: nothing to maintain
		}
		page.Tables = append(page.Tables, tableIndexEntry{ID: t.ID, Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name,
			Location: t.Location, MetadataLocation: t.MetadataLocation, Properties: t.Properties})
	}
	writeJSON(w, http.StatusOK, page)
}

// keyScope returns the bucket the request's key is scoped to ("" for
// every bucket); the edge has authenticated the key already.
func (s *Server) keyScope(r *http.Request) (string, error) {
	if err := s.authorize(r, "", read); err != nil {
		return "", err
	}
	p, _ := edge.PrincipalFrom(r.Context())
	return p.Key.Bucket, nil
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
