package icebergrest

import (
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// pageParams reads pageToken and pageSize; the token is the catalog's
// "after" name, so paging is stable while names are added or removed.
//
// The token is catalog.PageToken's opaque form of that name, so a token
// this server did not issue is refused with 400 instead of quietly
// answering an empty page.
func pageParams(r *http.Request) (catalog.ListOptions, error) {
	q := r.URL.Query()
	var opt catalog.ListOptions
	after, err := catalog.ParsePageToken(q.Get("pageToken"))
	if err != nil {
		return opt, badRequest("pageToken is not one this server issued; list again without it")
	}
	opt.After = after
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return opt, badRequest("pageSize must be a positive integer")
		}
		opt.Limit = min(n, catalog.MaxPageSize)
	}
	return opt, nil
}

func nextToken(next string) any {
	if next == "" {
		return nil
	}
	return catalog.PageToken(next)
}

func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	opt, err := pageParams(r)
	if err != nil {
		return err
	}
	var parent []string
	if p := r.URL.Query().Get("parent"); p != "" {
		if parent, err = parseNamespace(p); err != nil {
			return err
		}
		if err := seeOrRefuse(rightsOf(r), identity.Resource{Bucket: b.Name, Namespace: parent}); err != nil {
			return err
		}
		if _, err := s.store.GetNamespace(r.Context(), b.Name, parent); err != nil {
			return fromCatalog(err, typeNoSuchNamespace)
		}
	}
	if all, names := rightsOf(r).Children(identity.Resource{Bucket: b.Name, Namespace: parent}); !all {
		return s.listSomeNamespaces(w, r, b, parent, names, opt)
	}
	items, next, err := s.store.ListNamespaces(r.Context(), b.Name, parent, opt)
	if err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	out := make([][]string, len(items))
	for i, n := range items {
		out[i] = n.Levels
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": out, "next-page-token": nextToken(next)})
	return nil
}

func (s *Server) createNamespace(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	var in struct {
		Namespace  []string          `json:"namespace"`
		Properties map[string]string `json:"properties"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := checkLevels(in.Namespace); err != nil {
		return err
	}
	// Creating a place needs manage on it (its parent's managers have it).
	if err := require(r, identity.Manage, identity.Resource{Bucket: b.Name, Namespace: in.Namespace}); err != nil {
		return err
	}
	n, err := s.store.CreateNamespace(r.Context(), b.Name, in.Namespace, in.Properties)
	if err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	writeJSON(w, http.StatusOK, namespaceBody(n))
	return nil
}

// listSomeNamespaces lists, for a caller who may not read all of parent,
// the child namespaces its grants lead into (names, sorted): each looked
// up, paged by the last one shown.
func (s *Server) listSomeNamespaces(w http.ResponseWriter, r *http.Request, b catalog.Bucket, parent, names []string, opt catalog.ListOptions) error {
	limit := opt.Limit
	if limit <= 0 {
		limit = catalog.DefaultPageSize
	}
	// The cursor is a full name, as the catalog's own listing makes it.
	after := opt.After[strings.LastIndexByte(opt.After, '.')+1:]
	out := [][]string{}
	next := ""
	for _, name := range names {
		if name <= after {
			continue
		}
		if len(out) == limit {
			next = catalog.JoinNamespace(out[len(out)-1])
			break
		}
		levels := append(slices.Clip(parent), name)
		if _, err := s.store.GetNamespace(r.Context(), b.Name, levels); errors.Is(err, fault.NotFound) {
			continue
		} else if err != nil {
			return fromCatalog(err, typeNoSuchNamespace)
		}
		out = append(out, levels)
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": out, "next-page-token": nextToken(next)})
	return nil
}

func namespaceBody(n catalog.Namespace) map[string]any {
	props := n.Properties
	if props == nil {
		props = map[string]string{}
	}
	return map[string]any{"namespace": n.Levels, "properties": props}
}

func (s *Server) loadNamespace(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	levels, err := namespaceParam(r)
	if err != nil {
		return err
	}
	n, err := s.store.GetNamespace(r.Context(), b.Name, levels)
	if err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	writeJSON(w, http.StatusOK, namespaceBody(n))
	return nil
}

func (s *Server) namespaceExists(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	levels, err := namespaceParam(r)
	if err != nil {
		return err
	}
	if _, err := s.store.GetNamespace(r.Context(), b.Name, levels); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) dropNamespace(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	levels, err := namespaceParam(r)
	if err != nil {
		return err
	}
	force, err := s.force(r, safety.NamespaceResource(b.Name, levels))
	if err != nil {
		return err
	}
	if err := s.store.DropNamespaceWith(r.Context(), b.Name, levels, catalog.CascadeOptions{Force: force, By: principal(r).String()}); err != nil {
		if errors.Is(err, fault.NotEmpty) {
			return errorf(http.StatusConflict, typeNamespaceNotEmpty, "namespace %q is not empty: drop its tables and child namespaces first", strings.Join(levels, "."))
		}
		return fromCatalog(err, typeNoSuchNamespace)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) updateNamespaceProperties(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	levels, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in struct {
		Removals []string          `json:"removals"`
		Updates  map[string]string `json:"updates"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	for _, k := range in.Removals {
		if _, ok := in.Updates[k]; ok {
			return errorf(http.StatusUnprocessableEntity, typeUnprocessable, "property %q is both removed and updated", k)
		}
	}
	before, err := s.store.GetNamespace(r.Context(), b.Name, levels)
	if err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	_, sets := in.Updates[catalog.ProtectedProperty]
	if sets || slices.Contains(in.Removals, catalog.ProtectedProperty) {
		if err := safety.Require(r.Context(), s.manager, principal(r), safety.NamespaceResource(b.Name, levels), "changing "+catalog.ProtectedProperty); err != nil {
			return err
		}
	}
	if _, err := s.store.UpdateNamespaceProperties(r.Context(), b.Name, levels, in.Removals, in.Updates); err != nil {
		return fromCatalog(err, typeNoSuchNamespace)
	}
	removed, missing := []string{}, []string{}
	for _, k := range in.Removals {
		if _, ok := before.Properties[k]; ok {
			removed = append(removed, k)
		} else {
			missing = append(missing, k)
		}
	}
	updated := make([]string, 0, len(in.Updates))
	for k := range in.Updates {
		updated = append(updated, k)
	}
	sort.Strings(updated)
	writeJSON(w, http.StatusOK, map[string]any{"updated": updated, "removed": removed, "missing": missing})
	return nil
}
