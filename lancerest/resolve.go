package lancerest

import (
	"context"
	"errors"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// emptyProps renders as {}; shared and never written to.
var emptyProps = map[string]string{}

func propsOrEmpty(m map[string]string) map[string]string {
	if m == nil {
		return emptyProps
	}
	return m
}

type propsResponse struct {
	Properties map[string]string `json:"properties"`
}

func nsNotFound(id []string, delim string) *Error {
	return NewError(CodeNamespaceNotFound, "namespace "+quote(joinIdentifier(id, delim))+" not found",
		"List the parent namespace to see what exists; a namespace is created with CreateNamespace, and its parent must exist first.")
}

func tableNotFound(id []string, delim string) *Error {
	return NewError(CodeTableNotFound, "table "+quote(joinIdentifier(id, delim))+" not found",
		"List the namespace's tables to see what exists; a table id is bucket, namespace levels, then the table name.")
}

// validateNamespaceID checks the catalog's name rules for a bucket and
// namespace levels (id has at least one name).
func validateNamespaceID(id []string) *Error {
	if err := catalog.ValidateBucketName(id[0]); err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	for _, l := range id[1:] {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return asError(err, CodeNamespaceNotFound)
		}
	}
	return nil
}

// tableRef checks a table id (bucket, at least one namespace level, name).
func tableRef(id []string) (catalog.TableRef, *Error) {
	if len(id) < 3 {
		return catalog.TableRef{}, invalid("a table id needs a bucket, a namespace and a table name",
			"floe keeps tables inside namespaces of a bucket: use bucket$namespace$table (or pass the namespace path to the SDK).")
	}
	if e := validateNamespaceID(id[:len(id)-1]); e != nil {
		return catalog.TableRef{}, e
	}
	name := id[len(id)-1]
	if err := catalog.ValidateTableName(name); err != nil {
		return catalog.TableRef{}, asError(err, CodeTableNotFound)
	}
	return catalog.TableRef{Bucket: id[0], Namespace: id[1 : len(id)-1], Name: name}, nil
}

// lanceBucket resolves a bucket the Lance API may serve: buckets declared
// for Iceberg are invisible here.
func (s *Server) lanceBucket(ctx context.Context, name, delim string) (catalog.Bucket, *Error) {
	b, err := s.store.GetBucket(ctx, name)
	if errors.Is(err, fault.NotFound) {
		return b, nsNotFound([]string{name}, delim)
	}
	if err != nil {
		return b, asError(err, CodeNamespaceNotFound)
	}
	if b.Format == catalog.FormatIceberg {
		e := nsNotFound([]string{name}, delim)
		e.Detail = "Bucket " + quote(name) + " is declared for Iceberg; the Lance Namespace API does not serve it. Use the Iceberg REST catalog, or a LANCE bucket."
		return b, e
	}
	return b, nil
}

// namespaceVisible checks that a namespace (id of two or more names) exists
// in a Lance-visible bucket.
func (s *Server) namespaceVisible(ctx context.Context, id []string, delim string) *Error {
	if _, e := s.lanceBucket(ctx, id[0], delim); e != nil {
		return e
	}
	if len(id) == 1 {
		return nil
	}
	_, err := s.store.GetNamespace(ctx, id[0], id[1:])
	if errors.Is(err, fault.NotFound) {
		return nsNotFound(id, delim)
	}
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	return nil
}

// resolveTable finds a visible Lance table: Iceberg tables and deregistered
// Lance tables are not found here.
func (s *Server) resolveTable(ctx context.Context, ref catalog.TableRef, id []string, delim string) (catalog.Table, *Error) {
	t, err := s.store.GetTable(ctx, ref)
	if errors.Is(err, fault.NotFound) {
		return t, tableNotFound(id, delim)
	}
	if err != nil {
		return t, asError(err, CodeTableNotFound)
	}
	if t.Format != catalog.FormatLance {
		return t, tableNotFound(id, delim)
	}
	if t.State == catalog.StateDeregistered {
		e := tableNotFound(id, delim)
		e.Detail = "The table was deregistered (its data is kept); DeclareTable or RegisterTable brings it back."
		return t, e
	}
	return t, nil
}

// formatConflict explains a catalog ErrConflict on declare or register: the
// bucket is declared for Iceberg (400), or the name or location is held by
// another table (409 code 5).
func formatConflict(cause error, id []string, delim string) *Error {
	var ce *fault.Error
	if !errors.As(cause, &ce) {
		return asError(cause, CodeTableNotFound)
	}
	switch ce.Field {
	case "format":
		return invalid("bucket "+quote(id[0])+" is declared for Iceberg", ce.Message+".")
	case "name":
		return NewError(CodeTableAlreadyExists, "table "+quote(joinIdentifier(id, delim))+" already exists as an Iceberg table", ce.Message+".")
	case "location":
		return NewError(CodeTableAlreadyExists, "location is held by another table", ce.Message+".")
	}
	return asError(cause, CodeTableNotFound)
}

// hasIcebergTables reports whether any namespace at or below prefix in a
// bucket whose format is unset holds an Iceberg table; a Lance call never
// deletes those.
func (s *Server) hasIcebergTables(ctx context.Context, b catalog.Bucket, prefix []string) (bool, error) {
	if b.Format != catalog.FormatUnset {
		return false, nil
	}
	all, err := s.store.ListAllNamespaces(ctx, b.Name)
	if err != nil {
		return false, err
	}
	for _, ns := range all {
		if len(ns.Levels) < len(prefix) || !sameID(ns.Levels[:len(prefix)], prefix) {
			continue
		}
		n, err := s.store.CountTables(ctx, b.Name, ns.Levels, catalog.ListTablesOptions{Format: catalog.FormatIceberg, IncludeDeregistered: true})
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
	return false, nil
}

func icebergInside(id []string, delim string) *Error {
	return NewError(CodeNamespaceNotEmpty, "namespace "+quote(joinIdentifier(id, delim))+" holds Iceberg tables",
		"The Lance API never deletes Iceberg tables; drop them through the Iceberg REST catalog first.")
}
