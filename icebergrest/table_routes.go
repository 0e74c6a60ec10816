package icebergrest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

func (s *Server) listTables(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	opt, err := pageParams(r)
	if err != nil {
		return err
	}
	if _, err := s.store.GetNamespace(r.Context(), b.Name, ns); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	if all, names := rightsOf(r).Tables(identity.Resource{Bucket: b.Name, Namespace: ns}); !all {
		return s.listSomeTables(w, r, names, opt, func(name string) (bool, error) {
			t, err := s.store.GetTable(r.Context(), catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: name})
			return err == nil && t.Format == catalog.FormatIceberg, err
		})
	}
	// Lance tables share the namespace but are invisible here.
	items, next, err := s.store.ListTables(r.Context(), b.Name, ns, catalog.ListTablesOptions{ListOptions: opt, Format: catalog.FormatIceberg})
	if err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	ids := make([]map[string]any, len(items))
	for i, t := range items {
		ids[i] = map[string]any{"namespace": t.Namespace, "name": t.Name}
	}
	writeJSON(w, http.StatusOK, map[string]any{"identifiers": ids, "next-page-token": nextToken(next)})
	return nil
}

// listSomeTables lists, for a caller who may not read the whole namespace,
// the tables or views of it that it holds grants on (names, sorted) and
// exists says are there, paged by the last one shown.
func (s *Server) listSomeTables(w http.ResponseWriter, r *http.Request, names []string, opt catalog.ListOptions, exists func(string) (bool, error)) error {
	ns, _ := namespaceParam(r)
	limit := opt.Limit
	if limit <= 0 {
		limit = catalog.DefaultPageSize
	}
	ids := []map[string]any{}
	next := ""
	for _, name := range names {
		if name <= opt.After {
			continue
		}
		if len(ids) == limit {
			next = ids[len(ids)-1]["name"].(string)
			break
		}
		ok, err := exists(name)
		if errors.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return fromCatalog(err, typeNoSuchNamespace)
		}
		if ok {
			ids = append(ids, map[string]any{"namespace": ns, "name": name})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"identifiers": ids, "next-page-token": nextToken(next)})
	return nil
}

func (s *Server) loadTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	refsOnly := false
	switch v := r.URL.Query().Get("snapshots"); v {
	case "", "all":
	case "refs":
		refsOnly = true
	default:
		return badRequest("snapshots must be all or refs, not %q", v)
	}
	res, err := s.tables.LoadTable(r.Context(), ref)
	if err != nil {
		return err
	}
	// A client holding the current metadata is told so without it: metadata
	// of a table with a long history runs to megabytes.
	etag := etagOf(res.MetadataLocation, r.URL.RawQuery)
	w.Header().Set("ETag", etag)
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if refsOnly {
		if res, err = res.RefSnapshotsOnly(); err != nil {
			return err
		}
	}
	return s.writeLoadResult(w, r, res, new(tableRes(ref)))
}

func (s *Server) tableExists(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	if _, err := s.tables.Table(r.Context(), ref); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) reportMetrics(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	// Engines report scan and commit metrics here; floe does not keep them.
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) createTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in iceberg.CreateTableInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	// Creating a table needs manage on its place (the namespace's managers
	// have it).
	if err := requireCreate(r, b, ns, in.Name); err != nil {
		return err
	}
	res, err := s.tables.CreateTable(r.Context(), b, ns, in)
	if err != nil {
		return err
	}
	return s.writeLoadResult(w, r, res, &identity.Resource{Bucket: b.Name, Namespace: ns, Table: in.Name})
}

func (s *Server) commitTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	var req iceberg.CommitInput
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	if err := s.guardProtection(r.Context(), r, ref, req.Updates); err != nil {
		return err
	}
	res, err := s.tables.Commit(r.Context(), b, ref, req)
	if err != nil {
		return err
	}
	return s.writeLoadResult(w, r, res, nil)
}

func (s *Server) dropTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	force, err := s.force(r, safety.TableResource(ref))
	if err != nil {
		return err
	}
	if _, err := s.tables.DropTableWith(r.Context(), ref, r.URL.Query().Get("purgeRequested") == "true",
		catalog.DropOptions{Force: force, By: principal(r).String()}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type tableIdent struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// decodeRename reads a RenameTableRequest body (tables and views share it)
// and checks both identifiers; kind names the object in error sentences.
func decodeRename(r *http.Request, b catalog.Bucket, kind string) (from catalog.TableRef, to *tableIdent, err error) {
	var in struct {
		Source      *tableIdent `json:"source"`
		Destination *tableIdent `json:"destination"`
	}
	if err := decodeBody(r, &in); err != nil {
		return from, nil, err
	}
	if in.Source == nil || in.Destination == nil {
		return from, nil, badRequest("rename needs source and destination")
	}
	for _, id := range []*tableIdent{in.Source, in.Destination} {
		if err := checkLevels(id.Namespace); err != nil {
			return from, nil, err
		}
		if err := catalog.ValidateTableName(id.Name); err != nil {
			return from, nil, badRequest("%s name %q: %v", kind, id.Name, err)
		}
	}
	return catalog.TableRef{Bucket: b.Name, Namespace: in.Source.Namespace, Name: in.Source.Name}, in.Destination, nil
}

func (s *Server) renameTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	from, to, err := decodeRename(r, b, "table")
	if err != nil {
		return err
	}
	if err := requireRename(r, from, to); err != nil {
		return err
	}
	force, err := s.force(r, safety.TableResource(from))
	if err != nil {
		return err
	}
	if err := s.tables.RenameTableWith(r.Context(), from, to.Namespace, to.Name, force); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) registerTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in struct {
		Name             string `json:"name"`
		MetadataLocation string `json:"metadata-location"`
		Overwrite        bool   `json:"overwrite"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := requireCreate(r, b, ns, in.Name); err != nil {
		return err
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	force, err := s.force(r, safety.TableResource(ref))
	if err != nil {
		return err
	}
	res, err := s.tables.RegisterTableWith(r.Context(), b, ref, in.MetadataLocation, in.Overwrite, force)
	if err != nil {
		return err
	}
	return s.writeLoadResult(w, r, res, new(tableRes(ref)))
}

// transactionBody is CommitTransactionRequest; its entries are decoded one
// by one so a refusal can say which.
type transactionBody struct {
	TableChanges []json.RawMessage `json:"table-changes"`
}

// UnmarshalJSON refuses fields the request does not have: a client that
// sends one believes it asked for something floe would silently ignore.
func (t *transactionBody) UnmarshalJSON(b []byte) error {
	type wire transactionBody
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*wire)(t)); err != nil {
		return badRequest("a transaction is {\"table-changes\": [...]} and nothing else: %v", err)
	}
	return nil
}

func (s *Server) commitTransaction(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	var in transactionBody
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if len(in.TableChanges) == 0 {
		return badRequest("a transaction needs table-changes")
	}
	changes := make([]iceberg.TableChange, len(in.TableChanges))
	for i, raw := range in.TableChanges {
		var c iceberg.CommitInput
		if err := json.Unmarshal(raw, &c); err != nil {
			var ie *fault.Error
			if errors.As(err, &ie) {
				return badRequest("table change %d: %s", i, ie.Message)
			}
			return badRequest("table change %d: %v", i, err)
		}
		if c.Identifier == nil {
			return badRequest("table change %d needs an identifier", i)
		}
		if err := checkLevels(c.Identifier.Namespace); err != nil {
			return err
		}
		if err := catalog.ValidateTableName(c.Identifier.Name); err != nil {
			return badRequest("table name %q: %v", c.Identifier.Name, err)
		}
		changes[i] = iceberg.TableChange{
			Ref:   catalog.TableRef{Bucket: b.Name, Namespace: c.Identifier.Namespace, Name: c.Identifier.Name},
			Input: c,
		}
		// All or none: every table of the transaction must be the
		// caller's to write before any is committed.
		if err := require(r, identity.Write, tableRes(changes[i].Ref)); err != nil {
			return err
		}
		if err := s.guardProtection(r.Context(), r, changes[i].Ref, c.Updates); err != nil {
			return err
		}
	}
	if err := s.tables.CommitTransaction(r.Context(), b, changes); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// requireCreate: creating (or registering) a table or view needs manage
// on its place; a name that is not one is left to the library to refuse.
func requireCreate(r *http.Request, b catalog.Bucket, ns []string, name string) error {
	res := identity.Resource{Bucket: b.Name, Namespace: ns, Table: name}
	if catalog.ValidateTableName(name) != nil {
		res.Table = ""
	}
	return require(r, identity.Manage, res)
}

// requireRename: a rename takes a table or view out of its place (manage
// on it) and creates it in another namespace (manage there).
func requireRename(r *http.Request, from catalog.TableRef, to *tableIdent) error {
	if err := require(r, identity.Manage, tableRes(from)); err != nil {
		return err
	}
	return require(r, identity.Manage, identity.Resource{Bucket: from.Bucket, Namespace: to.Namespace})
}

// writeLoadResult answers a load, create or commit; with config (the
// table, so the keys vended are cut to what the caller may do to it), the
// storage settings an engine needs for the table's files.
func (s *Server) writeLoadResult(w http.ResponseWriter, r *http.Request, res *iceberg.Loaded, config *identity.Resource) error {
	withConfig := config != nil
	out := map[string]any{"metadata": json.RawMessage(res.Metadata)}
	if res.MetadataLocation != "" {
		out["metadata-location"] = res.MetadataLocation
	}
	if withConfig {
		var md struct {
			Location string `json:"location"`
		}
		_ = json.Unmarshal(res.Metadata, &md)
		cfg, creds, ae := s.tableConfig(r, md.Location, *config)
		if ae != nil {
			return ae
		}
		out["config"] = cfg
		if creds != nil {
			out["storage-credentials"] = creds
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
