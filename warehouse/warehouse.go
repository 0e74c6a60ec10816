// Package warehouse is the only code that turns a table's location into
// storage calls. It owns canonical locations (file:///… and s3://…) and
// their one parser, the containment rules (a table stays inside its bucket
// and never equals, contains or sits inside another), the two backends —
// the local disk confined by os.Root and S3-compatible stores (ranged reads,
// exclusive create, batch delete) — what clients are told to reach a table
// (storage options, vended temporary keys), and a health watch of the store.
package warehouse

import (
	"context"
)

// Warehouse is a root Location and the Backend that stores it. It is the one
// gate to storage: every operation is refused (ErrOutside) unless its
// location is within the root, and the whole root is never deleted.
type Warehouse struct {
	root    Location
	backend Backend
}

// New returns a Warehouse for root stored by b.
func New(root Location, b Backend) *Warehouse { return &Warehouse{root: root, backend: b} }

// Root is the warehouse's root location.
func (w *Warehouse) Root() Location { return w.root }

// Parse parses raw with Parse and refuses a location outside the root.
func (w *Warehouse) Parse(raw string) (Location, error) {
	loc, err := Parse(raw)
	if err != nil {
		return Location{}, err
	}
	return loc, w.Check(loc)
}

// Check refuses a location outside the root.
func (w *Warehouse) Check(loc Location) error {
	if loc.IsZero() {
		return errorf(ErrBadLocation, "location is empty")
	}
	if !loc.Within(w.root) {
		return errorf(ErrOutside, "location %s is outside the warehouse %s; choose a location inside it", loc, w.root)
	}
	return nil
}

// ReadFile reads a whole file.
func (w *Warehouse) ReadFile(ctx context.Context, loc Location) ([]byte, error) {
	if err := w.Check(loc); err != nil {
		return nil, err
	}
	return w.backend.ReadFile(ctx, loc)
}

// Open opens a file for ranged reads.
func (w *Warehouse) Open(ctx context.Context, loc Location) (File, error) {
	if err := w.Check(loc); err != nil {
		return nil, err
	}
	return w.backend.Open(ctx, loc)
}

// List calls fn for every file below prefix.
func (w *Warehouse) List(ctx context.Context, prefix Location, fn func(Entry) error) error {
	if err := w.Check(prefix); err != nil {
		return err
	}
	return w.backend.List(ctx, prefix, fn)
}

// CreateExclusive writes a new file, failing with ErrExist if one is there.
// Where ConditionalWrites is false the store may replace a file that is
// there instead: callers must not rely on the refusal for correctness.
func (w *Warehouse) CreateExclusive(ctx context.Context, loc Location, data []byte) error {
	if err := w.checkBelow(loc); err != nil {
		return err
	}
	return w.backend.CreateExclusive(ctx, loc, data)
}

// WriteFile creates or replaces a file.
func (w *Warehouse) WriteFile(ctx context.Context, loc Location, data []byte) error {
	if err := w.checkBelow(loc); err != nil {
		return err
	}
	return w.backend.WriteFile(ctx, loc, data)
}

// Delete removes one file; a missing one is fine.
func (w *Warehouse) Delete(ctx context.Context, loc Location) error {
	if err := w.checkBelow(loc); err != nil {
		return err
	}
	return w.backend.Delete(ctx, loc)
}

// DeletePrefix removes a tree; the root itself is refused.
func (w *Warehouse) DeletePrefix(ctx context.Context, prefix Location) error {
	if err := w.checkBelow(prefix); err != nil {
		return err
	}
	return w.backend.DeletePrefix(ctx, prefix)
}

// Exists reports whether loc (or anything below it) is there.
func (w *Warehouse) Exists(ctx context.Context, loc Location) (bool, error) {
	if err := w.Check(loc); err != nil {
		return false, err
	}
	return w.backend.Exists(ctx, loc)
}

// MkdirAll creates a directory and its parents on stores that have
// directories; elsewhere it does nothing.
func (w *Warehouse) MkdirAll(ctx context.Context, loc Location) error {
	if err := w.Check(loc); err != nil {
		return err
	}
	if d, ok := w.backend.(DirMaker); ok {
		return d.MkdirAll(ctx, loc)
	}
	return nil
}

// checkBelow refuses locations outside the root and the root itself: no
// write or delete addresses the whole warehouse.
func (w *Warehouse) checkBelow(loc Location) error {
	if err := w.Check(loc); err != nil {
		return err
	}
	if loc == w.root {
		return errorf(ErrOutside, "location %s is the warehouse root itself; name a place inside it", loc)
	}
	return nil
}

// ETagCreator is implemented by stores that answer a write with the new
// object's entity tag (S3); the local disk has none.
type ETagCreator interface {
	CreateExclusiveETag(ctx context.Context, loc Location, data []byte) (string, error)
}

// CreateExclusiveETag is CreateExclusive that also returns the stored
// object's entity tag where the store gives one ("" on the local disk).
func (w *Warehouse) CreateExclusiveETag(ctx context.Context, loc Location, data []byte) (string, error) {
	if err := w.checkBelow(loc); err != nil {
		return "", err
	}
	if t, ok := w.backend.(ETagCreator); ok {
		return t.CreateExclusiveETag(ctx, loc, data)
	}
	return "", w.backend.CreateExclusive(ctx, loc, data)
}

// ExclusiveCopier is implemented by stores that copy an object inside the
// store (S3 CopyObject), so its bytes never pass through floe.
type ExclusiveCopier interface {
	CopyExclusive(ctx context.Context, src, dst Location, srcETag string) (string, error)
}

// conditionalWriter is a backend that can say it does not honour
// conditional writes (an S3 store run with S3Config.NoConditionalPut).
type conditionalWriter interface{ ConditionalWrites() bool }

// ConditionalWrites reports whether CreateExclusive and CopyExclusive
// really are exclusive: the local disk and S3 stores that honour
// If-None-Match (floe checks at start) say true. False means the store
// ignores the condition and may replace the file silently: what must be
// decided between writers is decided in the catalog's database, and a
// writer that commits straight to such a store can lose to another.
func (w *Warehouse) ConditionalWrites() bool {
	c, ok := w.backend.(conditionalWriter)
	return !ok || c.ConditionalWrites()
}

// CopiesInPlace reports whether CopyExclusive copies inside the store, the
// bytes never passing through floe.
func (w *Warehouse) CopiesInPlace() bool {
	_, ok := w.backend.(ExclusiveCopier)
	return ok
}

// CopyExclusive copies src to a new file dst, failing with ErrExist if dst
// is there, and answers dst's entity tag ("" on the local disk). Where the
// store keeps entity tags (S3) a non-empty srcETag must still be src's
// (else ErrChanged): what is copied is exactly what the caller was told was
// written. Stores without a server-side copy read src and create dst.
func (w *Warehouse) CopyExclusive(ctx context.Context, src, dst Location, srcETag string) (string, error) {
	if err := w.Check(src); err != nil {
		return "", err
	}
	if err := w.checkBelow(dst); err != nil {
		return "", err
	}
	if c, ok := w.backend.(ExclusiveCopier); ok {
		return c.CopyExclusive(ctx, src, dst, srcETag)
	}
	data, err := w.backend.ReadFile(ctx, src)
	if err != nil {
		return "", err
	}
	return w.CreateExclusiveETag(ctx, dst, data)
}
