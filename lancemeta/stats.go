package lancemeta

import "slices"

// SmallFragmentRows is the row count under which LanceDB 0.39's stats()
// calls a fragment small (uncompacted).
const SmallFragmentRows = 100_000

// Stats is a version's figures as LanceDB 0.39's table.stats() computes
// them, from the manifest alone.
type Stats struct {
	// TotalBytes: data files plus index files, as the manifest records
	// their sizes (deletion files and manifests are not counted, as
	// LanceDB does not count them).
	TotalBytes uint64
	Rows       uint64 // live rows
	Indices    int    // indices LanceDB lists
	Fragments  FragmentStats
}

// FragmentStats summarises the fragments' physical row counts (deleted
// rows included, as LanceDB counts them).
type FragmentStats struct {
	Count int
	Small int // fragments under SmallFragmentRows
	// Lengths are the physical row counts' minimum, maximum, mean (rounded
	// down) and the sorted list's entries at n/4, n/2, 3n/4 and 99n/100:
	// LanceDB's percentiles, which take an entry rather than interpolate.
	Min, Max, Mean, P25, P50, P75, P99 uint64
}

// Stats computes the version's Stats.
func (m Manifest) Stats() Stats {
	rows := make([]uint64, len(m.FragmentList))
	var sum uint64
	for i, f := range m.FragmentList {
		rows[i] = f.PhysicalRows
		sum += f.PhysicalRows
	}
	slices.Sort(rows)
	n := len(rows)
	at := func(i int) uint64 {
		if i < n {
			return rows[i]
		}
		return 0
	}
	fs := FragmentStats{Count: n}
	for _, r := range rows {
		if r < SmallFragmentRows {
			fs.Small++
		}
	}
	if n > 0 {
		fs.Min, fs.Max, fs.Mean = rows[0], rows[n-1], sum/uint64(n)
		fs.P25, fs.P50, fs.P75, fs.P99 = at(n/4), at(n/2), at(n*3/4), at(n*99/100)
	}
	return Stats{TotalBytes: m.DataBytes + m.IndexBytes, Rows: m.Rows(), Indices: len(m.Indices), Fragments: fs}
}
