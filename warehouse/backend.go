package warehouse

import (
	"context"
	"io"
	"time"
)

// Backend is what a store implements: the local disk (Local) or an
// S3-compatible object store (S3). Every
// method takes canonical Locations; a Backend may assume they are inside the
// root it was built for, since Warehouse checks that first.
type Backend interface {
	// ReadFile reads a whole (small) file: metadata, manifests, markers.
	ReadFile(ctx context.Context, loc Location) ([]byte, error)
	// Open opens a file for ranged reads (Parquet footers and pages).
	Open(ctx context.Context, loc Location) (File, error)
	// List calls fn for every file below prefix, recursively. Directories
	// are not entries (object stores have none); a missing prefix lists
	// nothing. An error from fn stops the listing and is returned.
	List(ctx context.Context, prefix Location, fn func(Entry) error) error
	// CreateExclusive writes a new file and fails with ErrExist if one is
	// there already, so two writers never replace each other's metadata.
	CreateExclusive(ctx context.Context, loc Location, data []byte) error
	// WriteFile creates or replaces a file.
	WriteFile(ctx context.Context, loc Location, data []byte) error
	// Delete removes one file; a missing file is fine.
	Delete(ctx context.Context, loc Location) error
	// DeletePrefix removes everything at and below prefix (a table's whole
	// tree); a missing prefix is fine.
	DeletePrefix(ctx context.Context, prefix Location) error
	// Exists reports whether a file, or anything below loc, is there.
	Exists(ctx context.Context, loc Location) (bool, error)
}

// DirMaker is implemented by stores that have directories (the local
// disk). Warehouse.MkdirAll is a no-op on the others.
type DirMaker interface {
	MkdirAll(ctx context.Context, loc Location) error
}

// File is an open file read in ranges.
type File interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Entry is one file found by List.
type Entry struct {
	Loc     Location
	Size    int64
	ModTime time.Time
}
