package iceberg

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/floe/floe/catalog"
	"github.com/google/uuid"
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

// icebergTable returns the Iceberg table a path names; a Lance table of the
// same name does not exist as far as this catalog is concerned.
func (s *Server) icebergTable(r *http.Request, ref catalog.TableRef) (catalog.Table, error) {
	t, err := s.store.GetTable(r.Context(), ref)
	if err != nil {
		return t, fromCatalog(err, typeNoSuchTable)
	}
	if t.Format != catalog.FormatIceberg || t.MetadataLocation == "" {
		return t, noSuchTable(ref)
	}
	return t, nil
}

func (s *Server) loadTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	t, err := s.icebergTable(r, ref)
	if err != nil {
		return err
	}
	m, err := s.readMetadata(r.Context(), t.MetadataLocation)
	if err != nil {
		return fmt.Errorf("reading metadata of %s: %w", ref.Name, err)
	}
	return s.writeLoadResult(w, r, &commitResult{t.MetadataLocation, m.raw, m.md}, true)
}

func (s *Server) tableExists(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	if _, err := s.icebergTable(r, ref); err != nil {
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

func (s *Server) defaultLocation(ref catalog.TableRef) (string, error) {
	loc := s.store.DefaultLocation(ref, catalog.FormatIceberg)
	if loc == "" {
		return "", fmt.Errorf("the catalog gave no location for %s", ref.Name)
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return "", err
	}
	return abs, nil
}

func (s *Server) createTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in createRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := catalog.ValidateTableName(in.Name); err != nil {
		return badRequest("table name %q: %v", in.Name, err)
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	if _, err := s.store.GetNamespace(r.Context(), b.Name, ns); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	if _, err := s.store.GetTable(r.Context(), ref); err == nil {
		return errorf(http.StatusConflict, typeAlreadyExists, "table %q already exists in namespace %s", in.Name, catalog.JoinNamespace(ns))
	} else if !errors.Is(err, catalog.ErrNotFound) {
		return err
	}
	loc := in.Location
	if loc == "" {
		if loc, err = s.defaultLocation(ref); err != nil {
			return err
		}
	} else if err := s.checkTableLocation(b.Name, loc); err != nil {
		return badRequest("%v", err)
	}
	md, err := newTableMetadata(in, loc, uuid.NewString(), s.now().UnixMilli())
	if err != nil {
		return err
	}
	if in.StageCreate {
		// Nothing is written: the table appears when the client commits
		// with assert-create.
		return s.writeLoadResult(w, r, &commitResult{"", mustEncode(md), md}, true)
	}
	res, err := s.createEntry(r.Context(), ref, md, in.Location != "")
	if err != nil {
		return err
	}
	return s.writeLoadResult(w, r, res, true)
}

func mustEncode(md *tableMetadata) []byte {
	b, err := md.encode()
	if err != nil {
		panic(err) // our own structs always encode
	}
	return b
}

func (s *Server) dropTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	if _, err := s.icebergTable(r, ref); err != nil {
		return err
	}
	purge := r.URL.Query().Get("purgeRequested") == "true"
	if purge {
		if _, err := s.store.DropTable(r.Context(), ref); err != nil {
			return fromCatalog(err, typeNoSuchTable)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	// Without purge only the entry goes; every file stays for a later register.
	if _, err := s.store.ForgetTable(r.Context(), ref); err != nil {
		return fromCatalog(err, typeNoSuchTable)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type tableIdent struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

func (s *Server) renameTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	var in struct {
		Source      *tableIdent `json:"source"`
		Destination *tableIdent `json:"destination"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if in.Source == nil || in.Destination == nil {
		return badRequest("rename needs source and destination")
	}
	for _, id := range []*tableIdent{in.Source, in.Destination} {
		if err := checkLevels(id.Namespace); err != nil {
			return err
		}
		if err := catalog.ValidateTableName(id.Name); err != nil {
			return badRequest("table name %q: %v", id.Name, err)
		}
	}
	from := catalog.TableRef{Bucket: b.Name, Namespace: in.Source.Namespace, Name: in.Source.Name}
	if _, err := s.icebergTable(r, from); err != nil {
		return err
	}
	if _, err := s.store.GetNamespace(r.Context(), b.Name, in.Destination.Namespace); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	if _, err := s.store.RenameTable(r.Context(), from, in.Destination.Namespace, in.Destination.Name); err != nil {
		return fromCatalog(err, typeNoSuchTable)
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
	if err := catalog.ValidateTableName(in.Name); err != nil {
		return badRequest("table name %q: %v", in.Name, err)
	}
	if in.MetadataLocation == "" {
		return badRequest("register needs metadata-location")
	}
	// Check the path before reading anything: a client must not make the
	// server read files outside the bucket.
	if err := s.checkTableLocation(b.Name, in.MetadataLocation); err != nil {
		return badRequest("%v", err)
	}
	m, err := readMetadataFile(s.files, in.MetadataLocation)
	if err != nil {
		return badRequest("cannot read table metadata at %s: %v", in.MetadataLocation, err)
	}
	if err := s.checkTableLocation(b.Name, m.md.Location); err != nil {
		return badRequest("%v", err)
	}
	if !within(in.MetadataLocation, m.md.Location) {
		return badRequest("metadata-location %s is outside the table location %s", in.MetadataLocation, m.md.Location)
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	if _, err := s.store.GetNamespace(r.Context(), b.Name, ns); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	existing, err := s.store.GetTable(r.Context(), ref)
	switch {
	case err == nil && (!in.Overwrite || existing.Format != catalog.FormatIceberg):
		return errorf(http.StatusConflict, typeAlreadyExists, "table %q already exists", in.Name)
	case err == nil:
		if _, err := s.store.CommitTable(r.Context(), existing.ID, existing.VersionToken, in.MetadataLocation, m.md.Properties); err != nil {
			if errors.Is(err, catalog.ErrConflict) {
				return commitFailed("table %s changed while it was re-registered; retry", in.Name)
			}
			return fromCatalog(err, typeNoSuchTable)
		}
	case errors.Is(err, catalog.ErrNotFound):
		_, created, err := s.store.CreateTable(r.Context(), catalog.CreateTableInput{
			TableRef: ref, Format: catalog.FormatIceberg, Location: m.md.Location,
			MetadataLocation: in.MetadataLocation, Properties: m.md.Properties,
		})
		if err != nil {
			return fromCatalog(err, typeNoSuchNamespace)
		}
		if !created {
			return errorf(http.StatusConflict, typeAlreadyExists, "table %q already exists", in.Name)
		}
	default:
		return err
	}
	s.cache.put(in.MetadataLocation, m)
	return s.writeLoadResult(w, r, &commitResult{in.MetadataLocation, m.raw, m.md}, true)
}

func (s *Server) commitTransaction(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	var in struct {
		TableChanges []commitRequest `json:"table-changes"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if len(in.TableChanges) == 0 {
		return badRequest("a transaction needs table-changes")
	}
	// The catalog swaps one table's metadata at a time, so only a single
	// table change can be applied all-or-nothing.
	if len(in.TableChanges) > 1 {
		return errorf(http.StatusNotAcceptable, typeUnsupported, "transactions over more than one table are not supported; commit each table on its own")
	}
	c := in.TableChanges[0]
	if c.Identifier == nil {
		return badRequest("a table change needs an identifier")
	}
	if err := checkLevels(c.Identifier.Namespace); err != nil {
		return err
	}
	if err := catalog.ValidateTableName(c.Identifier.Name); err != nil {
		return badRequest("table name %q: %v", c.Identifier.Name, err)
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: c.Identifier.Namespace, Name: c.Identifier.Name}
	if _, err := s.commit(r.Context(), b, ref, c); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
