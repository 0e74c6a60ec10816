package safety

import (
	"context"
	"log/slog"
	"time"

	"github.com/floe/floe/catalog"
)

// DefaultSweepInterval is how often a server looks for tables whose hold
// has ended: a hold is days long, so a minute late is nothing, and a
// listing of due rows a minute costs nothing either.
const DefaultSweepInterval = time.Minute

// sweepBatch bounds one pass's purges, so a sweep that finds thousands of
// tables due (a bucket cascade a week ago) yields between batches.
const sweepBatch = 100

// Sweeper purges the recently deleted tables whose hold has ended. Every
// replica on a shared PostgreSQL may run one: the catalog claims each
// table in the database before it deletes a byte, so no table's data is
// deleted twice. Each purge is logged; the catalog's table-change hook
// hears of it too.
type Sweeper struct {
	Store    *catalog.Store
	Interval time.Duration // 0: DefaultSweepInterval
	Log      *slog.Logger  // nil: slog.Default()
}

// Run sweeps until ctx ends, then returns nil.
func (s *Sweeper) Run(ctx context.Context) error {
	every := s.Interval
	if every <= 0 {
		every = DefaultSweepInterval
	}
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		s.Sweep(ctx, log)
	}
}

// Sweep runs one pass: batches of due tables until none is left (or a
// batch purged nothing, as when every due table's purge is refused).
func (s *Sweeper) Sweep(ctx context.Context, log *slog.Logger) int {
	total := 0
	for ctx.Err() == nil {
		done, err := s.Store.PurgeExpired(ctx, sweepBatch)
		for _, d := range done {
			log.Info("purged a recently deleted table: its hold ended",
				"bucket", d.Bucket, "namespace", catalog.JoinNamespace(d.Namespace), "table", d.Name, "table_id", d.ID,
				"deleted_at", d.DeletedAt, "deleted_by", d.DeletedBy, "data_deleted", d.PurgeData)
		}
		total += len(done)
		if err != nil && ctx.Err() == nil {
			log.Warn("a recently deleted table could not be purged; it stays recently deleted and the next sweep retries", "err", err)
		}
		if len(done) < sweepBatch {
			return total
		}
	}
	return total
}
