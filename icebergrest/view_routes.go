package icebergrest

import (
	"encoding/json"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
)

// The eight view operations of the spec. Parsing and rendering live here;
// the view rules (versions, requirements, name sharing) are the library's.

func viewParam(r *http.Request) (catalog.TableRef, error) {
	ns, err := namespaceParam(r)
	if err != nil {
		return catalog.TableRef{}, err
	}
	name := r.PathValue("view")
	if err := catalog.ValidateTableName(name); err != nil {
		return catalog.TableRef{}, badRequest("view name %q: %v", name, err)
	}
	return catalog.TableRef{Bucket: r.PathValue("prefix"), Namespace: ns, Name: name}, nil
}

func (s *Server) listViews(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	opt, err := pageParams(r)
	if err != nil {
		return err
	}
	if all, names := rightsOf(r).Tables(identity.Resource{Bucket: b.Name, Namespace: ns}); !all {
		if _, err := s.store.GetNamespace(r.Context(), b.Name, ns); err != nil {
			return fromCatalog(err, typeNoSuchNamespace)
		}
		return s.listSomeTables(w, r, names, opt, func(name string) (bool, error) {
			_, err := s.store.GetView(r.Context(), catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: name})
			return err == nil, err
		})
	}
	items, next, err := s.tables.ListViews(r.Context(), b.Name, ns, opt)
	if err != nil {
		return err
	}
	ids := make([]map[string]any, len(items))
	for i, v := range items {
		ids[i] = map[string]any{"namespace": v.Namespace, "name": v.Name}
	}
	writeJSON(w, http.StatusOK, map[string]any{"identifiers": ids, "next-page-token": nextToken(next)})
	return nil
}

func (s *Server) createView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in iceberg.CreateViewInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := requireCreate(r, b, ns, in.Name); err != nil {
		return err
	}
	res, err := s.tables.CreateView(r.Context(), b, ns, in)
	if err != nil {
		return err
	}
	return s.writeViewResult(w, r, res)
}

func (s *Server) loadView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := viewParam(r)
	if err != nil {
		return err
	}
	res, err := s.tables.LoadView(r.Context(), ref)
	if err != nil {
		return err
	}
	return s.writeViewResult(w, r, res)
}

func (s *Server) viewExists(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := viewParam(r)
	if err != nil {
		return err
	}
	if _, err := s.tables.View(r.Context(), ref); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) commitView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := viewParam(r)
	if err != nil {
		return err
	}
	var in iceberg.ViewCommitInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	res, err := s.tables.CommitView(r.Context(), b, ref, in)
	if err != nil {
		return err
	}
	return s.writeViewResult(w, r, res)
}

func (s *Server) dropView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := viewParam(r)
	if err != nil {
		return err
	}
	if err := s.tables.DropView(r.Context(), ref); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) renameView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	from, to, err := decodeRename(r, b, "view")
	if err != nil {
		return err
	}
	if err := requireRename(r, from, to); err != nil {
		return err
	}
	if err := s.tables.RenameView(r.Context(), from, to.Namespace, to.Name); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) registerView(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in struct {
		Name             string `json:"name"`
		MetadataLocation string `json:"metadata-location"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := requireCreate(r, b, ns, in.Name); err != nil {
		return err
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	res, err := s.tables.RegisterView(r.Context(), b, ref, in.MetadataLocation)
	if err != nil {
		return err
	}
	return s.writeViewResult(w, r, res)
}

// writeViewResult answers with the spec's LoadViewResult.
func (s *Server) writeViewResult(w http.ResponseWriter, r *http.Request, res *iceberg.LoadedView) error {
	writeJSON(w, http.StatusOK, map[string]any{
		"metadata-location": res.MetadataLocation,
		"metadata":          json.RawMessage(res.Metadata),
		"config":            map[string]string{},
	})
	return nil
}
