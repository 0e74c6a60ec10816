package iceberg

import (
	"context"
	"io"

	"github.com/floe/floe/warehouse"
)

// fileStore is the slice of storage the Iceberg server and reader use:
// reading metadata, manifests and data files, and writing metadata files
// that must never replace another writer's. warehouseFiles implements it
// over the warehouse package, which owns parsing and containment.
type fileStore interface {
	ReadFile(loc string) ([]byte, error)
	Open(loc string) (readFile, error)
	// CreateExclusive writes a new file and fails if one is already there.
	CreateExclusive(loc string, data []byte) error
	Remove(loc string) error
}

// readFile is an open data file that Parquet can seek in.
type readFile interface {
	io.ReaderAt
	io.ReadSeeker
	io.Closer
	Size() int64
}

// warehouseFiles reaches files through the warehouse: one location parser,
// nothing outside the warehouse root and, on local disk, no symbolic links.
// Locations come from metadata a client wrote, so each is parsed here.
type warehouseFiles struct{ w *warehouse.Warehouse }

func (f warehouseFiles) ReadFile(loc string) ([]byte, error) {
	l, err := f.w.Parse(loc)
	if err != nil {
		return nil, err
	}
	return f.w.ReadFile(context.Background(), l)
}

func (f warehouseFiles) Open(loc string) (readFile, error) {
	l, err := f.w.Parse(loc)
	if err != nil {
		return nil, err
	}
	file, err := f.w.Open(context.Background(), l)
	if err != nil {
		return nil, err
	}
	return seekableFile{io.NewSectionReader(file, 0, file.Size()), file}, nil
}

func (f warehouseFiles) CreateExclusive(loc string, data []byte) error {
	l, err := f.w.Parse(loc)
	if err != nil {
		return err
	}
	return f.w.CreateExclusive(context.Background(), l, data)
}

// CreateExclusiveContext is CreateExclusive bounded by ctx: the first
// metadata write of a create runs inside the catalog's write transaction
// and must not hold it for as long as a hung store would.
func (f warehouseFiles) CreateExclusiveContext(ctx context.Context, loc string, data []byte) error {
	l, err := f.w.Parse(loc)
	if err != nil {
		return err
	}
	return f.w.CreateExclusive(ctx, l, data)
}

func (f warehouseFiles) Remove(loc string) error {
	l, err := f.w.Parse(loc)
	if err != nil {
		return err
	}
	return f.w.Delete(context.Background(), l)
}

// seekableFile adds Seek (which Parquet's reader wants) to a ranged file.
type seekableFile struct {
	*io.SectionReader
	file warehouse.File
}

func (f seekableFile) Close() error { return f.file.Close() }

// within reports whether loc is root itself or lies below it, comparing
// canonical locations so no spelling of a path can alias or escape.
func within(loc, root string) bool {
	l, err := warehouse.Parse(loc)
	if err != nil {
		return false
	}
	r, err := warehouse.Parse(root)
	if err != nil {
		return false
	}
	return l.Within(r)
}

// joinLoc appends file names to a location, in canonical form.
func joinLoc(base string, parts ...string) (string, error) {
	b, err := warehouse.Parse(base)
	if err != nil {
		return "", err
	}
	l, err := b.Join(parts...)
	if err != nil {
		return "", err
	}
	return l.String(), nil
}
