package catalog

import (
	"errors"
	"fmt"
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

// LocalDisk is Storage on the local file system. It takes plain paths and
// file:// URIs; other URIs (s3://…) are not local: making a "directory"
// there is a no-op (object stores have none), nothing exists there, and
// writing or deleting fails rather than pretending.
type LocalDisk struct{}

// localPath maps a location to a local path; ok is false for remote URIs.
func localPath(p string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		return rest, true
	}
	return p, !isURI(p)
}

func errRemote(p string) error {
	return fmt.Errorf("local-disk storage cannot change %s; configure an object-store warehouse", p)
}

// MkdirAll creates a directory and its parents.
func (LocalDisk) MkdirAll(path string) error {
	lp, ok := localPath(path)
	if !ok {
		return nil
	}
	return os.MkdirAll(lp, 0o755)
}

// RemoveAll deletes a tree.
func (LocalDisk) RemoveAll(path string) error {
	lp, ok := localPath(path)
	if !ok {
		return errRemote(path)
	}
	return os.RemoveAll(lp)
}

// WriteFile writes a file, creating its directory if needed.
func (LocalDisk) WriteFile(path string, data []byte) error {
	lp, ok := localPath(path)
	if !ok {
		return errRemote(path)
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return err
	}
	return os.WriteFile(lp, data, 0o644)
}

// Remove deletes a file or an empty directory.
func (LocalDisk) Remove(path string) error {
	lp, ok := localPath(path)
	if !ok {
		return nil // nothing of ours can be there
	}
	err := os.Remove(lp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Exists reports whether path exists.
func (LocalDisk) Exists(path string) (bool, error) {
	lp, ok := localPath(path)
	if !ok {
		return false, nil
	}
	_, err := os.Stat(lp)
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
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		return "file://" + filepath.Clean(rest)
	}
	if isURI(p) {
		return strings.TrimRight(p, "/")
	}
	return filepath.Clean(p)
}
