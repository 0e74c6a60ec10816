package catalog

import (
	"context"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
	"golang.org/x/sync/errgroup"
)

// MaxCreateTables bounds one CreateTables call: its transaction holds the
// database's write lock while every table's storage is prepared.
const MaxCreateTables = 10_000

// CreateTables creates many new tables in one database transaction: every
// one is checked as CreateTable checks it (names, formats, the bucket's
// format, the namespace, locations free) and prepared on storage the same
// way, and either all are recorded or none is. Unlike CreateTable it does
// not take an existing name as a repeat: a name already in use, by a table
// of either format or twice in the batch, fails the whole call with
// fault.AlreadyExists naming it, so a bulk load stops where it collides
// instead of quietly skipping. Tables come back in the order given; their
// change events are sent once the transaction commits.
//
// It is what a bulk load calls (a tenant per table, a benchmark's million
// tables): one commit per batch instead of one per table.
func (s *Store) CreateTables(ctx context.Context, ins []CreateTableInput) ([]Table, error) {
	if len(ins) > MaxCreateTables {
		return nil, newErr(fault.Invalid, "tables", "%d tables in one call; at most %d, so split the load into batches", len(ins), MaxCreateTables)
	}
	explicit := make([]warehouse.Location, len(ins))
	seen := make(map[refKey]bool, len(ins))
	for i, in := range ins {
		loc, err := checkCreateInput(in)
		if err != nil {
			return nil, err
		}
		if in.FirstMetadata != nil {
			return nil, newErr(fault.Invalid, "tables", "table %q comes with first metadata to write; create such tables one at a time", in.Name)
		}
		k := ref3(in.TableRef)
		if seen[k] {
			return nil, newErr(fault.AlreadyExists, "name", "table %q appears twice in namespace %q of bucket %q; name each table once",
				in.Name, JoinNamespace(in.Namespace), in.Bucket)
		}
		seen[k] = true
		explicit[i] = loc
	}
	out := make([]Table, len(ins))
	locs := make([]warehouse.Location, len(ins))
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		buckets := map[string]Bucket{}
		namespaces := map[[2]string]bool{}
		for i, in := range ins {
			b, ok := buckets[in.Bucket]
			if !ok {
				var err error
				if b, err = s.getBucket(ctx, tx, in.Bucket); err != nil {
					return err
				}
				buckets[in.Bucket] = b
			}
			if err := checkBucketAccepts(b, in.Format); err != nil {
				return err
			}
			ns := [2]string{in.Bucket, JoinNamespace(in.Namespace)}
			if !namespaces[ns] {
				if err := s.requireNamespace(ctx, tx, ns[0], ns[1]); err != nil {
					return err
				}
				namespaces[ns] = true
			}
			if !explicit[i].IsZero() {
				if err := s.checkPlacement(in.Bucket, explicit[i]); err != nil {
					return err
				}
			}
			existing, found, err := s.findTable(ctx, tx, in.TableRef)
			if err != nil {
				return err
			}
			if found {
				if existing.Format != in.Format {
					return formatConflict(in.TableRef, existing.Format)
				}
				return newErr(fault.AlreadyExists, "name", "table %q already exists in namespace %q of bucket %q; leave it out of the batch",
					in.Name, ns[1], in.Bucket)
			}
			t, loc, err := s.planTable(ctx, tx, in, explicit[i])
			if err != nil {
				return err
			}
			// Recorded before the next is planned, so two tables of the
			// batch cannot settle on one location.
			if err := s.recordTable(ctx, tx, t, in.Tags); err != nil {
				return err
			}
			out[i], locs[i] = t, loc
		}
		return s.prepareTables(ctx, tx, out, locs)
	})
	if err != nil {
		return nil, err
	}
	for _, t := range out {
		s.tableChanged(t.ID)
		s.tableEvent(TableEvent{Kind: TableCreated, Table: t})
	}
	return out, nil
}

// prepareParallel is how many tables' storage CreateTables prepares at
// once: each is a few small writes whose time is the store's round trip (or
// the disk's sync), not this process's CPU.
const prepareParallel = 64

// prepareTables prepares the recorded tables' storage, several at a time,
// and records the Lance tables found already written as created.
func (s *Store) prepareTables(ctx context.Context, tx *persist.Tx, ts []Table, locs []warehouse.Location) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(prepareParallel)
	for i := range ts {
		g.Go(func() error { return s.prepareTable(gctx, &ts[i], locs[i], nil) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, t := range ts {
		if t.State == StateCreated {
			if _, err := tx.ExecContext(ctx, `UPDATE tables SET state = ? WHERE id = ?`, string(t.State), t.ID); err != nil {
				return dbErr("update table", err)
			}
		}
	}
	return nil
}

// refKey is a table's place as a comparable key.
type refKey struct{ Bucket, Namespace, Name string }

func ref3(r TableRef) refKey { return refKey{r.Bucket, JoinNamespace(r.Namespace), r.Name} }
