package iceberg

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileStore is the slice of storage the Iceberg server and reader use:
// reading metadata, manifests and data files, and writing metadata files
// that must never replace another writer's. localStore implements it; an
// object store can follow behind the same methods.
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

type localStore struct{}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

// localPath turns a location (plain path, file:/path or file:///path) into
// a path on this machine; anything else is refused.
func localPath(loc string) (string, error) {
	switch {
	case strings.HasPrefix(loc, "file://"):
		loc = strings.TrimPrefix(loc, "file://")
		if !strings.HasPrefix(loc, "/") { // file://host/path is not local
			return "", fmt.Errorf("location %q names a host", loc)
		}
	case strings.HasPrefix(loc, "file:"):
		loc = strings.TrimPrefix(loc, "file:")
	case strings.Contains(loc, "://"):
		return "", fmt.Errorf("location %q is not on the local warehouse", loc)
	}
	if !filepath.IsAbs(loc) {
		return "", fmt.Errorf("location %q is not absolute", loc)
	}
	return filepath.Clean(loc), nil
}

func (localStore) ReadFile(loc string) ([]byte, error) {
	p, err := localPath(loc)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

func (localStore) Open(loc string) (readFile, error) {
	p, err := localPath(loc)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{f, st.Size()}, nil
}

func (localStore) CreateExclusive(loc string, data []byte) error {
	p, err := localPath(loc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	return f.Close()
}

func (localStore) Remove(loc string) error {
	p, err := localPath(loc)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// within reports whether loc is root itself or lies below it, comparing
// cleaned local paths so "../" tricks and file: prefixes cannot escape.
func within(loc, root string) bool {
	l, err := localPath(loc)
	if err != nil {
		return false
	}
	r, err := localPath(root)
	if err != nil {
		return false
	}
	return l == r || strings.HasPrefix(l, r+string(filepath.Separator))
}

// joinLoc appends path parts to a location.
func joinLoc(base string, parts ...string) string {
	return strings.TrimRight(base, "/") + "/" + strings.Join(parts, "/")
}
