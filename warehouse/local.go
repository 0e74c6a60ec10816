package warehouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Local is the Backend on a local directory. Every operation goes through an
// os.Root opened on that directory, so no name can reach outside it, and
// before each operation every existing component of the path is checked
// with Lstat: a symbolic link anywhere below the root is refused
// (ErrSymlink), even one pointing inside, because a link would let one
// table's location reach into another's files.
//
// What it is not: proof against a local user racing to swap a directory for
// a link between the check and the use. os.Root still confines such a race
// to the warehouse directory.
type Local struct {
	root Location
	dir  *os.Root
}

// Modes for what floe creates: readable by the engines that run as other
// users on the same machine, writable by floe.
const (
	dirMode  = 0o755
	fileMode = 0o644
)

// OpenLocal opens (creating if needed) the directory dir as a local store.
// dir must be absolute.
func OpenLocal(dir string) (*Local, error) {
	if !filepath.IsAbs(dir) {
		return nil, errorf(ErrBadLocation, "warehouse directory %q is relative; give an absolute path", dir)
	}
	root, err := Parse(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root.Path(), dirMode); err != nil {
		return nil, fmt.Errorf("warehouse: create %s: %w", root.Path(), err)
	}
	r, err := os.OpenRoot(root.Path())
	if err != nil {
		return nil, fmt.Errorf("warehouse: open %s: %w", root.Path(), err)
	}
	return &Local{root: root, dir: r}, nil
}

// NewLocal opens dir as a Warehouse on the local disk.
func NewLocal(dir string) (*Warehouse, *Local, error) {
	l, err := OpenLocal(dir)
	if err != nil {
		return nil, nil, err
	}
	return New(l.root, l), l, nil
}

// Root is the location of the directory.
func (l *Local) Root() Location { return l.root }

// Close releases the directory handle.
func (l *Local) Close() error { return l.dir.Close() }

// rel is loc's path relative to the root ("." for the root), after checking
// that no existing component is a symbolic link.
func (l *Local) rel(loc Location) (string, error) {
	r, _, err := l.check(loc)
	return r, err
}

// check is rel plus what it learnt about loc itself: its Lstat result, or
// nil when loc does not exist. Each component is Lstat'ed by absolute path,
// one syscall apiece (the kernel walks the path; os.Root would open every
// directory on the way again for each prefix).
func (l *Local) check(loc Location) (string, fs.FileInfo, error) {
	r, ok := loc.Rel(l.root)
	if !ok {
		return "", nil, errorf(ErrOutside, "location %s is outside the warehouse %s; choose a location inside it", loc, l.root)
	}
	if r == "" {
		fi, err := os.Lstat(l.root.Path())
		return ".", fi, err
	}
	p := l.root.Path()
	var fi fs.FileInfo
	for rest := r; rest != ""; {
		seg, more, _ := strings.Cut(rest, "/")
		rest = more
		p = filepath.Join(p, seg)
		var err error
		fi, err = os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return r, nil, nil // nothing further down exists yet, so no link either
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", nil, errorf(ErrSymlink, "location %s passes through the symbolic link %s; floe does not follow links inside the warehouse",
				loc, "file://"+p)
		}
	}
	return r, fi, nil
}

// ReadFile reads a whole file.
func (l *Local) ReadFile(ctx context.Context, loc Location) ([]byte, error) {
	f, err := l.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, f.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, err
	}
	return buf[:n], nil
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

// Open opens a regular file for ranged reads.
func (l *Local) Open(ctx context.Context, loc Location) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := l.rel(loc)
	if err != nil {
		return nil, err
	}
	f, err := l.dir.Open(r)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, errorf(ErrBadLocation, "location %s is not a file", loc)
	}
	return localFile{f, st.Size()}, nil
}

// List calls fn for every regular file below prefix. Links are neither
// followed nor listed.
func (l *Local) List(ctx context.Context, prefix Location, fn func(Entry) error) error {
	r, err := l.rel(prefix)
	if err != nil {
		return err
	}
	err = l.walk(ctx, prefix, r, fn)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (l *Local) walk(ctx context.Context, dirLoc Location, rel string, fn func(Entry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := l.dir.Open(rel)
	if err != nil {
		return err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, e := range ents {
		child, err := dirLoc.Join(e.Name())
		if err != nil {
			continue // a name floe could not have written
		}
		childRel := e.Name()
		if rel != "." {
			childRel = rel + "/" + e.Name()
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			continue
		case e.IsDir():
			if err := l.walk(ctx, child, childRel, fn); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		case e.Type().IsRegular():
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while listing
			}
			if err != nil {
				return err
			}
			if err := fn(Entry{Loc: child, Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// MkdirAll creates a directory and its parents.
func (l *Local) MkdirAll(ctx context.Context, loc Location) error {
	r, err := l.rel(loc)
	if err != nil {
		return err
	}
	return l.dir.MkdirAll(r, dirMode)
}

// CreateExclusive writes a new file; ErrExist if one (or a link) is there.
func (l *Local) CreateExclusive(ctx context.Context, loc Location, data []byte) error {
	r, err := l.rel(loc)
	if err != nil {
		return err
	}
	if err := l.dir.MkdirAll(filepath.Dir(r), dirMode); err != nil {
		return err
	}
	return l.create(r, data)
}

// create writes data to a new file rel, synced before it is reported.
func (l *Local) create(rel string, data []byte) error {
	f, err := l.dir.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		l.dir.Remove(rel)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		l.dir.Remove(rel)
		return err
	}
	return f.Close()
}

// WriteFile writes a temporary file beside loc and renames it into place, so
// readers never see half a file and a link at loc is replaced, not followed.
func (l *Local) WriteFile(ctx context.Context, loc Location, data []byte) error {
	r, err := l.rel(loc)
	if err != nil {
		return err
	}
	if err := l.dir.MkdirAll(filepath.Dir(r), dirMode); err != nil {
		return err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	tmp := r + ".tmp-" + hex.EncodeToString(nonce[:])
	if err := l.create(tmp, data); err != nil {
		return err
	}
	if err := l.dir.Rename(tmp, r); err != nil {
		l.dir.Remove(tmp)
		return err
	}
	return nil
}

// Delete removes one file (or empty directory); a missing one is fine.
func (l *Local) Delete(ctx context.Context, loc Location) error {
	r, err := l.rel(loc)
	if err != nil {
		return err
	}
	if err := l.dir.Remove(r); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// DeletePrefix removes a tree; a missing one is fine.
func (l *Local) DeletePrefix(ctx context.Context, prefix Location) error {
	r, err := l.rel(prefix)
	if err != nil {
		return err
	}
	if r == "." {
		return errorf(ErrOutside, "refusing to delete the whole warehouse %s", l.root)
	}
	return l.dir.RemoveAll(r)
}

// Exists reports whether a file or directory is at loc. The component
// check already answers it: every component was Lstat'ed, none is a link,
// so the last one is loc inside the root.
func (l *Local) Exists(ctx context.Context, loc Location) (bool, error) {
	if loc.Within(l.root) {
		// Nothing at the path, links followed or not, means nothing there:
		// one syscall answers the common "no _versions/ yet" case.
		if _, err := os.Lstat(loc.Path()); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
	}
	_, fi, err := l.check(loc)
	if err != nil {
		return false, err
	}
	return fi != nil, nil
}
