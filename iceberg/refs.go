package iceberg

import (
	"fmt"
	"sort"
)

// retention reads one retention value of set-snapshot-ref. Values must be
// positive (the table spec, and every reader that validates refs, refuses
// others); -1 is what iceberg-go sends for "not set" (its
// NewSetSnapshotRefUpdate documents non-positive as unset), so it is taken
// to mean exactly that rather than stored for readers to choke on.
func retention(name string, v *int64) (*int64, error) {
	switch {
	case v == nil || *v == -1:
		return nil, nil
	case *v <= 0:
		return nil, fmt.Errorf("%s must be positive, or -1 to leave it unset (got %d)", name, *v)
	}
	return v, nil
}

// repairRefs drops from md's refs what no reader accepts: non-positive
// retention values and branch-only retention on tags, which floe before
// this check stored as clients sent them (iceberg-go's -1 among them).
// Each reader that validates refs (iceberg-go's LoadTable does) refused
// such a table outright. It returns a sentence per repair, sorted; none
// when md was fine.
func repairRefs(md *tableMetadata) []string {
	var fixed []string
	for name, r := range md.Refs {
		changed := false
		drop := func(field string, bad bool) bool {
			if bad {
				fixed = append(fixed, fmt.Sprintf("ref %q: dropped %s", name, field))
				changed = true
			}
			return bad
		}
		if r.MaxRefAgeMs != nil && drop(fmt.Sprintf("max-ref-age-ms %d (not positive)", *r.MaxRefAgeMs), *r.MaxRefAgeMs <= 0) {
			r.MaxRefAgeMs = nil
		}
		if r.MaxSnapshotAgeMs != nil {
			switch {
			case drop(fmt.Sprintf("max-snapshot-age-ms %d (not positive)", *r.MaxSnapshotAgeMs), *r.MaxSnapshotAgeMs <= 0):
				r.MaxSnapshotAgeMs = nil
			case drop("max-snapshot-age-ms (tags keep no history)", r.Type == "tag"):
				r.MaxSnapshotAgeMs = nil
			}
		}
		if r.MinSnapshotsToKeep != nil {
			switch {
			case drop(fmt.Sprintf("min-snapshots-to-keep %d (not positive)", *r.MinSnapshotsToKeep), *r.MinSnapshotsToKeep <= 0):
				r.MinSnapshotsToKeep = nil
			case drop("min-snapshots-to-keep (tags keep no history)", r.Type == "tag"):
				r.MinSnapshotsToKeep = nil
			}
		}
		if changed {
			md.Refs[name] = r
		}
	}
	sort.Strings(fixed)
	return fixed
}

// RefSnapshotsOnly is l as LoadTable's snapshots=refs asks for it: only the
// snapshots a branch or tag points at (the spec's "all snapshots referenced
// by branches or tags", which Java's server serves the same way), so a
// table with a long history loads in a fraction of the bytes. Everything
// else of the metadata is unchanged; a client that needs history loads it
// again with snapshots=all.
func (l *Loaded) RefSnapshotsOnly() (*Loaded, error) {
	if l.md == nil {
		return l, nil
	}
	keep := map[int64]bool{}
	for _, r := range l.md.Refs {
		keep[r.SnapshotID] = true
	}
	if len(keep) == len(l.md.Snapshots) {
		return l, nil // nothing to leave out
	}
	md := l.md.clone()
	md.Snapshots = md.Snapshots[:0]
	for _, s := range l.md.Snapshots {
		if keep[s.SnapshotID] {
			md.Snapshots = append(md.Snapshots, s)
		}
	}
	raw, err := md.encode()
	if err != nil {
		return nil, err
	}
	return &Loaded{MetadataLocation: l.MetadataLocation, Metadata: raw, md: md}, nil
}
