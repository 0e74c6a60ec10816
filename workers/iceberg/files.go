package iceworker

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/floe/floe/warehouse"
)

// FileInfo is one file found under a table's location.
type FileInfo struct {
	Path    string // as Files names it; compare with Canonical forms only
	Size    int64
	ModTime time.Time
}

// Files is the little the worker needs from the warehouse beyond what
// iceberg-go's own IO reads: list a table's files and remove some. It is
// ours on purpose so the warehouse package (local now, S3 later) can stand
// behind it without the jobs changing.
type Files interface {
	// List calls fn for every regular file under root, in no particular
	// order; fn returning an error stops the walk with that error.
	List(ctx context.Context, root string, fn func(FileInfo) error) error
	// Remove deletes one file; a file already gone is not an error.
	Remove(ctx context.Context, path string) error
}

// Canonical turns a location as Iceberg metadata writes it ("file:///a/b",
// "file:/a/b", "/a/b" or "s3://bucket/key") into one comparable form, with
// the warehouse package's one parser: a local file's path, or the object's
// s3:// URI. What that parser refuses is compared as written.
func Canonical(loc string) string {
	l, err := warehouse.Parse(loc)
	switch {
	case err != nil:
		return loc
	case l.Scheme() == warehouse.SchemeFile:
		return l.Path()
	default:
		return l.String()
	}
}

// LocalFiles serves table files from the local warehouse directory.
type LocalFiles struct{}

// List walks root; symbolic links are not followed (a link inside a table
// location must never lead a cleanup outside it).
func (LocalFiles) List(ctx context.Context, root string, fn func(FileInfo) error) error {
	root = Canonical(root)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			return err
		}
		return fn(FileInfo{Path: p, Size: info.Size(), ModTime: info.ModTime()})
	})
	return err
}

// Remove deletes one file.
func (LocalFiles) Remove(_ context.Context, path string) error {
	err := os.Remove(Canonical(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
