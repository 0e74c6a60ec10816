package catalog

// The soft-delete hold: how long a dropped table's data is kept, as a
// catalog-wide default and per bucket, and how people write it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/persist"
)

// DefaultSoftDeleteHold is the hold floe serve gives when --soft-delete-hold
// is not set.
const DefaultSoftDeleteHold = 7 * 24 * time.Hour

// MaxSoftDeleteHold bounds a hold: data kept longer than a year "in case"
// is data nobody remembers, and a typo (7000d) must not keep it forever.
const MaxSoftDeleteHold = 366 * 24 * time.Hour

// settingSoftDeleteHold is the catalog_settings key of the default hold.
const settingSoftDeleteHold = "soft_delete_hold"

// checkHold refuses a hold floe will not keep.
func checkHold(d time.Duration) error {
	if d < 0 || d > MaxSoftDeleteHold {
		return Invalid("soft_delete_hold", fmt.Sprintf("a soft-delete hold must be between 0 (delete at once) and %d days", MaxSoftDeleteHold/(24*time.Hour)))
	}
	return nil
}

// SetDefaultHold records the hold of every bucket without its own (floe
// serve writes --soft-delete-hold here at start, so the CLI drops with the
// same hold).
func (s *Store) SetDefaultHold(ctx context.Context, d time.Duration) error {
	if err := checkHold(d); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *persist.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO catalog_settings(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
			settingSoftDeleteHold, strconv.FormatInt(d.Microseconds(), 10)); err != nil {
			return dbErr("store the soft-delete hold", err)
		}
		return nil
	})
}

// DefaultHold is the hold of a bucket without its own: the recorded one
// (SetDefaultHold), else the store's Options.SoftDeleteHold.
func (s *Store) DefaultHold(ctx context.Context) (time.Duration, error) {
	return s.defaultHold(ctx, s.ro)
}

func (s *Store) defaultHold(ctx context.Context, q querier) (time.Duration, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM catalog_settings WHERE key = ?`, settingSoftDeleteHold).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return s.opts.SoftDeleteHold, nil
	}
	if err != nil {
		return 0, dbErr("read the soft-delete hold", err)
	}
	us, err := strconv.ParseInt(v, 10, 64)
	if err != nil || us < 0 {
		return s.opts.SoftDeleteHold, nil // a damaged value falls back to the option, never to "delete at once" by accident
	}
	return time.Duration(us) * time.Microsecond, nil
}

// EffectiveHold is how long a table dropped in bucket b stays recently
// deleted: the bucket's own hold, else the default.
func (s *Store) EffectiveHold(ctx context.Context, b Bucket) (time.Duration, error) {
	return s.holdOf(ctx, s.ro, b)
}

func (s *Store) holdOf(ctx context.Context, q querier, b Bucket) (time.Duration, error) {
	if b.SoftDeleteHold >= 0 {
		return b.SoftDeleteHold, nil
	}
	return s.defaultHold(ctx, q)
}

// HoldOr is the bucket's hold given the default one (DefaultHold): its
// own when set. A caller that shows both reads the default once.
func (b Bucket) HoldOr(def time.Duration) time.Duration {
	if b.SoftDeleteHold >= 0 {
		return b.SoftDeleteHold
	}
	return def
}

// SetBucketHold sets a bucket's own hold; a negative d returns it to the
// default.
func (s *Store) SetBucketHold(ctx context.Context, name string, d time.Duration) (Bucket, error) {
	if err := validateBucket("bucket", name); err != nil {
		return Bucket{}, err
	}
	if d >= 0 {
		if err := checkHold(d); err != nil {
			return Bucket{}, err
		}
	}
	stored := int64(-1)
	if d >= 0 {
		stored = d.Microseconds()
	}
	var b Bucket
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if b, err = s.getBucket(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET soft_delete_hold = ? WHERE name = ?`, stored, name); err != nil {
			return dbErr("set the soft-delete hold", err)
		}
		b.SoftDeleteHold = -1
		if d >= 0 {
			b.SoftDeleteHold = d
		}
		return nil
	})
	return b, err
}

// ParseHold reads a hold as people write it: "7d", "36h", "90m", "0", or
// a Go duration ("1h30m"). It refuses what checkHold refuses.
func ParseHold(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	var d time.Duration
	if n, unit := strings.TrimRight(s, "d"), len(s); strings.HasSuffix(s, "d") && unit > 1 {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > int(MaxSoftDeleteHold/(24*time.Hour)) {
			return 0, Invalid("soft_delete_hold", fmt.Sprintf("a hold of %q is not a number of days up to %d", s, MaxSoftDeleteHold/(24*time.Hour)))
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, Invalid("soft_delete_hold", fmt.Sprintf("a hold is a number of days (7d), hours (36h) or minutes (90m), or 0 to delete at once; not %q", s))
		}
	}
	return d, checkHold(d)
}

// FormatHold writes a hold the way ParseHold reads it, in the largest
// whole unit: "7d", "36h", "90m", "0".
func FormatHold(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}
