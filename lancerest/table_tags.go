package lancerest

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

// Tags live where Lance keeps them, <location>/_refs/tags/<name>.json, in
// Lance's own JSON, so a tag made here is one LanceDB's table.tags() lists
// and the other way round. Files are reached through the warehouse, which
// keeps every location inside it.
// tagFile is Lance's tag file (camelCase as Lance writes it).
type tagFile struct {
	Branch       *string           `json:"branch"`
	Version      uint64            `json:"version"`
	CreatedAt    string            `json:"createdAt,omitempty"`
	UpdatedAt    string            `json:"updatedAt,omitempty"`
	ManifestSize int64             `json:"manifestSize"`
	Metadata     map[string]string `json:"metadata"`
}

// tagName is the subset of Lance's tag names floe writes: no path
// separators, no leading dot, nothing a file system treats specially.
var tagName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$`)

type tagRequest struct {
	ID        []string `json:"id"`
	Tag       string   `json:"tag"`
	Version   *int64   `json:"version"`
	Branch    *string  `json:"branch"`
	PageToken *string  `json:"page_token"`
	Limit     *int     `json:"limit"`
}

// maxTagPage bounds one ListTableTags page; each tag is a file read.
const maxTagPage = 1000

// tagCall decodes a tag request and resolves its table; needTag and
// needVersion say which fields the operation requires.
func (s *Server) tagCall(r *http.Request, c *call, needTag, needVersion, write bool) (tagRequest, tagTable, *Error) {
	var none tagTable
	var req tagRequest
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &req); e != nil {
			return e
		}
		return checkBodyID(req.ID, c.id)
	}); e != nil {
		return req, none, e
	}
	if e := mainBranchOnly(req.Branch); e != nil {
		return req, none, e
	}
	if needTag && !tagName.MatchString(req.Tag) {
		return req, none, invalid("tag "+quote(req.Tag)+" is not a valid tag name", "Tag names are 1-255 of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.' or '-'.")
	}
	if needVersion && (req.Version == nil || *req.Version < 1) {
		return req, none, invalid("version is required and must be at least 1", "Pass a version listed by ListTableVersions.")
	}
	t, e := s.readableTable(r, c)
	if e != nil {
		return req, none, e
	}
	if write {
		if e := c.require(identity.Write, tableResource(catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name})); e != nil {
			return req, none, e
		}
	}
	managed, e := s.managed(r.Context(), t)
	if e != nil {
		return req, none, e
	}
	if _, found, err := s.commits.Describe(r.Context(), t, managed, 0); err != nil {
		return req, none, asError(err, CodeTableNotFound)
	} else if !found {
		return req, none, NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no versions yet (it is only declared)",
			"Write the dataset first; tags name versions.")
	}
	loc, err := s.store.Storage().Parse(t.Location)
	if err == nil {
		loc, err = loc.Join("_refs", "tags")
	}
	if err != nil {
		return req, none, asError(err, CodeTableNotFound)
	}
	return req, tagTable{dir: loc, table: t, managed: managed}, nil
}

// tagTable is a tag call's resolved table: its tag directory and whether
// its versions come from the catalog's record.
type tagTable struct {
	dir     warehouse.Location
	table   catalog.Table
	managed bool
}

func tagNotFound(c *call, tag string) *Error {
	return NewError(CodeTableTagNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no tag "+quote(tag),
		"List the table's tags with ListTableTags.")
}

// listTableTags: POST /v1/table/{id}/tags/list. Tags by name, paged:
// limit and page_token from the body or the query; the page token is the
// last name of the previous page.
func listTableTags(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, tt, e := s.tagCall(r, c, false, false, false)
	if e != nil {
		return e
	}
	limit, after, e := tagPage(c, req)
	if e != nil {
		return e
	}
	dir := tt.dir
	type contents struct {
		Branch       *string `json:"branch,omitempty"`
		Version      uint64  `json:"version"`
		ManifestSize int64   `json:"manifestSize"`
	}
	out := map[string]contents{}
	var names []string
	err := s.store.Storage().List(r.Context(), dir, func(en warehouse.Entry) error {
		rel, _ := en.Loc.Rel(dir)
		if name, ok := cutJSON(rel); ok && !strings.Contains(rel, "/") && name > after {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	slices.Sort(names)
	var next string
	if len(names) > limit {
		names = names[:limit]
		next = names[limit-1]
	}
	for _, name := range names {
		tf, err := s.readTag(r.Context(), dir, name)
		if err != nil {
			continue // being written or removed right now
		}
		out[name] = contents{Branch: tf.Branch, Version: tf.Version, ManifestSize: tf.ManifestSize}
	}
	return writeJSON(w, struct {
		Tags      map[string]contents `json:"tags"`
		PageToken string              `json:"page_token,omitempty"`
	}{out, next})
}

// tagPage reads ListTableTags' limit and page_token (body first, then the
// query string).
func tagPage(c *call, req tagRequest) (limit int, after string, e *Error) {
	if req.Limit != nil {
		limit = *req.Limit
	} else if limit, e = queryLimit(c); e != nil {
		return 0, "", e
	}
	if limit < 0 {
		return 0, "", invalid("limit must be a non-negative integer", "Pass limit 100, or leave it out for every tag (up to 1000).")
	}
	if limit == 0 || limit > maxTagPage {
		limit = maxTagPage
	}
	if req.PageToken != nil {
		after = *req.PageToken
	} else if after, e = queryString(c, "page_token"); e != nil {
		return 0, "", e
	}
	if after != "" && !tagName.MatchString(after) {
		return 0, "", invalid("page_token "+quote(after)+" is not one this server gave", "Pass the page_token of the previous answer, or none for the first page.")
	}
	return limit, after, nil
}

// getTableTagVersion: POST /v1/table/{id}/tags/version.
func getTableTagVersion(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, tt, e := s.tagCall(r, c, true, false, false)
	if e != nil {
		return e
	}
	tf, err := s.readTag(r.Context(), tt.dir, req.Tag)
	if errors.Is(err, fs.ErrNotExist) {
		return tagNotFound(c, req.Tag)
	}
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, struct {
		Version uint64 `json:"version"`
	}{tf.Version})
}

// createTableTag: POST /v1/table/{id}/tags/create; 409 code 9 if it exists.
func createTableTag(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.putTag(w, r, c, false)
}

// updateTableTag: POST /v1/table/{id}/tags/update; 404 code 8 if missing.
func updateTableTag(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.putTag(w, r, c, true)
}

func (s *Server) putTag(w http.ResponseWriter, r *http.Request, c *call, update bool) *Error {
	req, tt, e := s.tagCall(r, c, true, true, true)
	if e != nil {
		return e
	}
	dir := tt.dir
	ctx := r.Context()
	v, found, err := s.commits.Describe(ctx, tt.table, tt.managed, uint64(*req.Version))
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	if !found {
		return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+itoa(*req.Version),
			"Pick a version listed by ListTableVersions.")
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	tf := tagFile{Version: v.Version, CreatedAt: now, UpdatedAt: now, ManifestSize: v.Size, Metadata: map[string]string{}}
	old, err := s.readTag(ctx, dir, req.Tag)
	switch {
	case update && errors.Is(err, fs.ErrNotExist):
		return tagNotFound(c, req.Tag)
	case update && err == nil:
		tf.CreatedAt, tf.Metadata = old.CreatedAt, old.Metadata
		if tf.Metadata == nil {
			tf.Metadata = map[string]string{}
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return asError(err, CodeTableNotFound)
	}
	b, _ := json.MarshalIndent(tf, "", "  ")
	path, err := dir.Join(req.Tag + ".json")
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	wh := s.store.Storage()
	if err := wh.MkdirAll(ctx, dir); err != nil {
		return asError(err, CodeTableNotFound)
	}
	if update {
		// The warehouse replaces a file whole, so a reader never sees half
		// a tag.
		if err := wh.WriteFile(ctx, path, b); err != nil {
			return asError(err, CodeTableNotFound)
		}
		return writeJSON(w, struct{}{})
	}
	err = wh.CreateExclusive(ctx, path, b)
	if errors.Is(err, fs.ErrExist) {
		return NewError(CodeTableTagAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already has tag "+quote(req.Tag),
			"Move it with UpdateTableTag, or delete it first.")
	}
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, struct{}{})
}

// deleteTableTag: POST /v1/table/{id}/tags/delete.
func deleteTableTag(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, tt, e := s.tagCall(r, c, true, false, true)
	if e != nil {
		return e
	}
	path, err := tt.dir.Join(req.Tag + ".json")
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	wh := s.store.Storage()
	// Delete of a missing file succeeds, so ask first: a missing tag is 404.
	ok, err := wh.Exists(r.Context(), path)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	if !ok {
		return tagNotFound(c, req.Tag)
	}
	if err := wh.Delete(r.Context(), path); err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, struct{}{})
}

func (s *Server) readTag(ctx context.Context, dir warehouse.Location, name string) (tagFile, error) {
	var tf tagFile
	path, err := dir.Join(name + ".json")
	if err != nil {
		return tf, err
	}
	b, err := s.store.Storage().ReadFile(ctx, path)
	if err != nil {
		return tf, err
	}
	return tf, json.Unmarshal(b, &tf)
}

func cutJSON(file string) (string, bool) {
	if len(file) <= len(".json") || file[len(file)-5:] != ".json" || file[0] == '.' {
		return "", false
	}
	return file[:len(file)-5], true
}
