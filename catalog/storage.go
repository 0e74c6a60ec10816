package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Storage is the small slice of a file system the catalog needs in the
// warehouse: directories for buckets, namespaces and tables, marker files,
// and deleting a dropped table's data. LocalDisk implements it; an S3
// implementation can follow without touching the catalog's rules.
type Storage interface {
	MkdirAll(path string) error
	// RemoveAll deletes path and everything below it; a missing path is fine.
	RemoveAll(path string) error
	// WriteFile creates or replaces a small file.
	WriteFile(path string, data []byte) error
	// Remove deletes one file or empty directory; a missing path is fine.
	Remove(path string) error
	Exists(path string) (bool, error)
}

// LocalDisk is Storage on the local file system.
type LocalDisk struct{}

// MkdirAll creates a directory and its parents.
func (LocalDisk) MkdirAll(path string) error { return os.MkdirAll(path, 0o755) }

// RemoveAll deletes a tree.
func (LocalDisk) RemoveAll(path string) error { return os.RemoveAll(path) }

// WriteFile writes a file, creating its directory if needed.
func (LocalDisk) WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Remove deletes a file or an empty directory.
func (LocalDisk) Remove(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Exists reports whether path exists.
func (LocalDisk) Exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// Marker files written beside a Lance table's data so storage tells the same
// story as the catalog.
const (
	markerReserved     = ".lance-reserved"
	markerDeregistered = ".lance-deregistered"
	versionsDir        = "_versions"
)

// isURI reports whether a location names an object store (s3://…) rather
// than a local path.
func isURI(p string) bool { return strings.Contains(p, "://") }

// joinPath joins location parts for local paths and URIs alike.
func joinPath(base string, parts ...string) string {
	if isURI(base) {
		return strings.TrimRight(base, "/") + "/" + strings.Join(parts, "/")
	}
	return filepath.Join(append([]string{base}, parts...)...)
}

// cleanLocation normalises a table location for comparison and storage.
func cleanLocation(p string) string {
	if p == "" {
		return ""
	}
	if isURI(p) {
		return strings.TrimRight(p, "/")
	}
	return filepath.Clean(p)
}
