package iceworker

import (
	"context"
	"sync"

	// iceberg-go reads and writes s3:// tables through its gocloud IO,
	// configured by the LoadTable config floe's Iceberg REST hands out.
	_ "github.com/apache/iceberg-go/io/gocloud/s3"

	"github.com/floe/floe/warehouse"
)

// WarehouseFiles lists and removes table files through floe's warehouse
// package: s3:// locations on the S3 store S3 describes (the same settings
// and AWS credential chain as floe serve's --warehouse s3://), every other
// location on the local disk as LocalFiles does.
//
// The settings are the operator's, not the keys floe vends to engines:
// orphan removal lists and deletes below a whole table prefix, which
// --vend-credentials off never hands out, and a worker beside serve
// (--with-worker) gets serve's own settings.
type WarehouseFiles struct {
	S3 warehouse.S3Config

	mu     sync.Mutex
	stores map[string]*warehouse.S3 // by S3 bucket
}

// maxStores bounds the per-bucket S3 clients kept (a warehouse is one
// bucket; a few registered tables may live in others). A guard, not a knob.
const maxStores = 16

// store returns the backend for loc's S3 bucket.
func (f *WarehouseFiles) store(ctx context.Context, loc warehouse.Location) (*warehouse.S3, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.stores[loc.Bucket()]; ok {
		return s, nil
	}
	root, err := warehouse.Parse("s3://" + loc.Bucket())
	if err != nil {
		return nil, err
	}
	s, err := warehouse.OpenS3(ctx, root, f.S3)
	if err != nil {
		return nil, err
	}
	if f.stores == nil || len(f.stores) >= maxStores {
		f.stores = map[string]*warehouse.S3{}
	}
	f.stores[loc.Bucket()] = s
	return s, nil
}

// s3Location parses an s3:// location; ok is false for anything else,
// which LocalFiles handles (and refuses in its own words if it must).
func s3Location(raw string) (warehouse.Location, bool) {
	loc, err := warehouse.Parse(raw)
	return loc, err == nil && loc.Scheme() == warehouse.SchemeS3
}

// List calls fn for every object below root.
func (f *WarehouseFiles) List(ctx context.Context, root string, fn func(FileInfo) error) error {
	loc, ok := s3Location(root)
	if !ok {
		return LocalFiles{}.List(ctx, root, fn)
	}
	s, err := f.store(ctx, loc)
	if err != nil {
		return err
	}
	return s.List(ctx, loc, func(e warehouse.Entry) error {
		return fn(FileInfo{Path: e.Loc.String(), Size: e.Size, ModTime: e.ModTime})
	})
}

// Remove deletes one object; one already gone is not an error.
func (f *WarehouseFiles) Remove(ctx context.Context, path string) error {
	loc, ok := s3Location(path)
	if !ok {
		return LocalFiles{}.Remove(ctx, path)
	}
	s, err := f.store(ctx, loc)
	if err != nil {
		return err
	}
	return s.Delete(ctx, loc)
}
