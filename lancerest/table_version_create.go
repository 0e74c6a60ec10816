package lancerest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancecommit"
)

// The version-creating operations of managed versioning: a client (LanceDB
// 0.39 when DescribeTable answers managed_versioning true) writes its new
// manifest under a staging name in _versions/ and commits it here; floe
// decides between racing writers (lancecommit). Tables of buckets without
// managed versioning answer Unsupported: their clients commit to storage.

type createVersionEntry struct {
	ID           []string          `json:"id"`
	Version      *int64            `json:"version"`
	Branch       *string           `json:"branch"`
	ManifestPath string            `json:"manifest_path"`
	ManifestSize *int64            `json:"manifest_size"`
	ETag         *string           `json:"e_tag"`
	Metadata     map[string]string `json:"metadata"`
	NamingScheme string            `json:"naming_scheme"`
}

type batchCreateVersionsRequest struct {
	Entries []createVersionEntry `json:"entries"`
}

type deleteVersionsRequest struct {
	ID     []string `json:"id"`
	Branch *string  `json:"branch"`
	Ranges []struct {
		Start *int64 `json:"start_version"`
		End   *int64 `json:"end_version"`
	} `json:"ranges"`
}

// maxVersionEntries bounds BatchCreateTableVersions: a multi-table commit
// names a handful of tables (the catalog's own bound is the same).
const maxVersionEntries = 100

// maxVersionRanges bounds BatchDeleteTableVersions: cleanup sends one
// range per version it removes, in calls of its own.
const maxVersionRanges = 1000

// createTableVersion: POST /v1/table/{id}/version/create. 409 code 14
// when the version exists (put-if-not-exists).
func createTableVersion(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req createVersionEntry
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeCreateVersion(b, c.id); return }); e != nil {
		return e
	}
	commit, e := s.versionCommit(r, c, c.id, req)
	if e != nil {
		return e
	}
	res, err := s.commits.Create(r.Context(), []lancecommit.Commit{commit})
	if err != nil {
		return commitError(err, c.id, c.delim)
	}
	return answerThenTidy(w, r, res, struct {
		Version tableVersion `json:"version"`
	}{versionJSON(res.Versions[0])})
}

// answerThenTidy sends the answer whole (with its length, flushed), then
// removes the commit's staging files: the client goes on while floe
// tidies, so an append through floe does not wait for that DELETE.
func answerThenTidy(w http.ResponseWriter, r *http.Request, res lancecommit.Committed, v any) *Error {
	b, err := json.Marshal(v)
	if err != nil {
		return asError(err, CodeInternal)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	res.Tidy(context.WithoutCancel(r.Context()))
	return nil
}

// batchCreateTableVersions: POST /v1/table/version/batch-create. All the
// entries' versions are created, or none (one catalog transaction).
func batchCreateTableVersions(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req batchCreateVersionsRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeBatchCreateVersions(b); return }); e != nil {
		return e
	}
	commits := make([]lancecommit.Commit, len(req.Entries))
	for i, en := range req.Entries {
		cm, e := s.versionCommit(r, c, en.ID, en)
		if e != nil {
			return e
		}
		commits[i] = cm
	}
	res, err := s.commits.Create(r.Context(), commits)
	if err != nil {
		return commitError(err, nil, c.delim)
	}
	out := make([]tableVersion, len(res.Versions))
	for i, v := range res.Versions {
		out[i] = versionJSON(v)
	}
	return answerThenTidy(w, r, res, struct {
		Versions []tableVersion `json:"versions"`
	}{out})
}

// versionCommit checks one entry and resolves its table for a write.
func (s *Server) versionCommit(r *http.Request, c *call, id []string, req createVersionEntry) (lancecommit.Commit, *Error) {
	var none lancecommit.Commit
	if e := mainBranchOnly(req.Branch); e != nil {
		return none, e
	}
	ref, e := tableRef(id)
	if e != nil {
		return none, e
	}
	if e := c.require(identity.Write, tableResource(ref)); e != nil {
		return none, e
	}
	t, e := s.resolveTable(r.Context(), ref, id, c.delim)
	if e != nil {
		return none, e
	}
	managed, e := s.managed(r.Context(), t)
	if e != nil {
		return none, e
	}
	if !managed {
		return none, NewError(CodeUnsupported, "bucket "+quote(ref.Bucket)+" does not manage versions",
			"Its tables' clients commit straight to storage (DescribeTable answers managed_versioning false); an operator turns it on with: floe bucket managed-versioning "+ref.Bucket+" on.")
	}
	if req.Version == nil || *req.Version < 1 {
		return none, invalid("version is required and must be at least 1", "Send the number of the version the manifest records.")
	}
	if req.ManifestPath == "" {
		return none, invalid("manifest_path is required", "Write the new manifest under the table's _versions/ (a staging name is fine) and send its path.")
	}
	principal := c.key.Name
	if c.key.ID == "" {
		principal = "anonymous"
	}
	cm := lancecommit.Commit{
		Table: t, Version: uint64(*req.Version), Manifest: req.ManifestPath, Scheme: req.NamingScheme,
		KeyID: c.key.ID, Principal: principal,
	}
	if req.ManifestSize != nil && *req.ManifestSize > 0 && req.ETag != nil {
		cm.Size, cm.ETag = *req.ManifestSize, *req.ETag
	}
	return cm, nil
}

// commitError maps a commit's failure: a version taken is the spec's
// ConcurrentModification (409 code 14), a table gone is 404 code 4.
func commitError(err error, id []string, delim string) *Error {
	var ce *fault.Error
	if errors.As(err, &ce) && errors.Is(err, fault.Conflict) {
		return NewError(CodeConcurrentModification, ce.Message,
			"Another writer committed this version first: load the table's latest version, rebase the change on it and commit the next version.")
	}
	if errors.Is(err, fault.NotFound) && id != nil {
		return tableNotFound(id, delim)
	}
	return asError(err, CodeTableNotFound)
}

// batchDeleteTableVersions: POST /v1/table/{id}/version/delete. Forgets
// version records (the spec: records, not data); ranges are [start, end)
// with end -1 meaning through the latest.
func batchDeleteTableVersions(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req deleteVersionsRequest
	var ranges []catalog.LanceVersionRange
	if e := withBody(r, func(b []byte) (e *Error) { req, ranges, e = decodeDeleteVersions(b, c.id); return }); e != nil {
		return e
	}
	if e := mainBranchOnly(req.Branch); e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := c.require(identity.Write, tableResource(ref)); e != nil {
		return e
	}
	t, e := s.resolveTable(r.Context(), ref, c.id, c.delim)
	if e != nil {
		return e
	}
	managed, e := s.managed(r.Context(), t)
	if e != nil {
		return e
	}
	if !managed {
		return NewError(CodeUnsupported, "bucket "+quote(ref.Bucket)+" does not manage versions",
			"The catalog keeps no version records for its tables; a client's cleanup deletes manifests in storage itself.")
	}
	n, err := s.commits.Delete(r.Context(), t, ranges)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, struct {
		DeletedCount int64 `json:"deleted_count"`
	}{n})
}

// decodeCreateVersion decodes CreateTableVersion's body (fields it needs
// are checked once the table is known to be managed).
func decodeCreateVersion(body []byte, path []string) (createVersionEntry, *Error) {
	var req createVersionEntry
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	return req, checkBodyID(req.ID, path)
}

// decodeBatchCreateVersions decodes BatchCreateTableVersions' body: 1 to
// maxVersionEntries entries, each naming its table.
func decodeBatchCreateVersions(body []byte) (batchCreateVersionsRequest, *Error) {
	var req batchCreateVersionsRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if len(req.Entries) == 0 {
		return req, invalid("entries is required", "Send one entry per table version to create.")
	}
	if len(req.Entries) > maxVersionEntries {
		return req, invalid("too many entries", "Send at most 100 versions in one BatchCreateTableVersions.")
	}
	for i, en := range req.Entries {
		if len(en.ID) == 0 {
			return req, invalid("entries["+itoa(int64(i))+"].id is required", "Give each entry its table's identifier as a list of names.")
		}
	}
	return req, nil
}

// decodeDeleteVersions decodes BatchDeleteTableVersions' body into ranges:
// [start, end) with end -1 (through the latest) read as End 0.
func decodeDeleteVersions(body []byte, path []string) (deleteVersionsRequest, []catalog.LanceVersionRange, *Error) {
	var req deleteVersionsRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, nil, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, nil, e
	}
	if len(req.Ranges) == 0 {
		return req, nil, invalid("ranges is required", "Send at least one {start_version, end_version} range; end_version is exclusive, -1 means through the latest.")
	}
	if len(req.Ranges) > maxVersionRanges {
		return req, nil, invalid("too many ranges", "Send at most 1000 ranges in one BatchDeleteTableVersions.")
	}
	ranges := make([]catalog.LanceVersionRange, len(req.Ranges))
	for i, rg := range req.Ranges {
		if rg.Start == nil || rg.End == nil || *rg.Start < 0 || (*rg.End != -1 && *rg.End <= *rg.Start) {
			return req, nil, invalid("ranges["+itoa(int64(i))+"] is not a version range", "A range is {start_version, end_version}: start at least 0, end exclusive and past start, or -1 for through the latest.")
		}
		ranges[i].Start = uint64(*rg.Start)
		if *rg.End > 0 {
			ranges[i].End = uint64(*rg.End)
		}
	}
	return req, ranges, nil
}
