package handlers

import (
	"time"

	"github.com/floe/floe/catalog"
)

// RowsSource is the one method of the observation store the console reads
// (observe.Store has it); declared here so handlers need not import observe.
type RowsSource interface {
	Rows(objectID string, f catalog.Format) (rows int64, observedAt time.Time, workerID string, ok bool)
}

// StatsFromRows adapts a RowsSource to StatsSource:
// web.Config{Stats: handlers.StatsFromRows(observeStore)}.
func StatsFromRows(src RowsSource) StatsSource { return rowsStats{src} }

type rowsStats struct{ src RowsSource }

func (r rowsStats) TableStats(tableID string, f catalog.Format) (TableStats, bool) {
	rows, at, worker, ok := r.src.Rows(tableID, f)
	if !ok {
		return TableStats{}, false
	}
	return TableStats{Rows: rows, ObservedAt: at, WorkerID: worker}, true
}
