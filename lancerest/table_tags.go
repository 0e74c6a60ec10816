package lancerest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancecommit"
)

// Tags live where Lance keeps them, <location>/_refs/tags/<name>.json, in
// Lance's own JSON; lancecommit reads and writes them (the console's Tags
// panel calls the same service). This file is the surface: it decodes the
// request, resolves the table, checks the key and maps the service's
// refusals to the spec's codes.

// tagName is lancecommit.TagName, the names floe writes.
var tagName = lancecommit.TagName

type tagRequest struct {
	ID        []string `json:"id"`
	Tag       string   `json:"tag"`
	Version   *int64   `json:"version"`
	Branch    *string  `json:"branch"`
	PageToken *string  `json:"page_token"`
	Limit     *int     `json:"limit"`
}

// maxTagPage bounds one ListTableTags page; each tag is a file read.
const maxTagPage = lancecommit.MaxTagPage

// tagCall decodes a tag request and resolves its table; needTag and
// needVersion say which fields the operation requires.
func (s *Server) tagCall(r *http.Request, c *call, needTag, needVersion, write bool) (tagRequest, catalog.Table, *Error) {
	var none catalog.Table
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
		return req, none, invalid("tag "+quote(req.Tag)+" is not a valid tag name", lancecommit.TagNameRule)
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
	return req, t, nil
}

func tagNotFound(c *call, tag string) *Error {
	return NewError(CodeTableTagNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no tag "+quote(tag),
		"List the table's tags with ListTableTags.")
}

// tagError maps the tag service's refusals to the spec's codes, naming
// the table as the request did.
func tagError(c *call, tag string, version *int64, err error) *Error {
	switch e, _ := fault.As(err); {
	case e != nil && e.Kind == fault.NotFound && e.Field == "tag":
		return tagNotFound(c, tag)
	case e != nil && e.Kind == fault.NotFound && e.Field == "version":
		v := int64(0)
		if version != nil {
			v = *version
		}
		return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+itoa(v),
			"Pick a version listed by ListTableVersions.")
	case e != nil && e.Kind == fault.AlreadyExists && e.Field == "tag":
		return NewError(CodeTableTagAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already has tag "+quote(tag),
			"Move it with UpdateTableTag, or delete it first.")
	case e != nil && e.Kind == fault.Invalid && (e.Field == "tag" || e.Field == "page_token"):
		return invalid(e.Message, "Pass a tag name listed by ListTableTags, or the page_token of the previous answer.")
	}
	return asError(err, CodeTableNotFound)
}

// listTableTags: POST /v1/table/{id}/tags/list. Tags by name, paged:
// limit and page_token from the body or the query; the page token is the
// last name of the previous page.
func listTableTags(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, t, e := s.tagCall(r, c, false, false, false)
	if e != nil {
		return e
	}
	limit, after, e := tagPage(c, req)
	if e != nil {
		return e
	}
	tags, next, err := s.commits.Tags(r.Context(), t, after, limit)
	if err != nil {
		return tagError(c, "", nil, err)
	}
	type contents struct {
		Branch       *string `json:"branch,omitempty"`
		Version      uint64  `json:"version"`
		ManifestSize int64   `json:"manifestSize"`
	}
	out := make(map[string]contents, len(tags))
	for _, tg := range tags {
		out[tg.Name] = contents{Branch: tg.Branch, Version: tg.Version, ManifestSize: tg.ManifestSize}
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
	req, t, e := s.tagCall(r, c, true, false, false)
	if e != nil {
		return e
	}
	tg, err := s.commits.Tag(r.Context(), t, req.Tag)
	if err != nil {
		return tagError(c, req.Tag, nil, err)
	}
	return writeJSON(w, struct {
		Version uint64 `json:"version"`
	}{tg.Version})
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
	req, t, e := s.tagCall(r, c, true, true, true)
	if e != nil {
		return e
	}
	put := s.commits.CreateTag
	if update {
		put = s.commits.MoveTag
	}
	if err := put(r.Context(), t, req.Tag, uint64(*req.Version)); err != nil {
		return tagError(c, req.Tag, req.Version, err)
	}
	return writeJSON(w, struct{}{})
}

// deleteTableTag: POST /v1/table/{id}/tags/delete.
func deleteTableTag(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, t, e := s.tagCall(r, c, true, false, true)
	if e != nil {
		return e
	}
	if err := s.commits.DeleteTag(r.Context(), t, req.Tag); err != nil {
		return tagError(c, req.Tag, nil, err)
	}
	return writeJSON(w, struct{}{})
}
