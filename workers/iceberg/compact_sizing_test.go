package iceworker

import (
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestRowsFor: read batches and written row groups are sized by bytes per
// row, within their row bounds, so wide rows never make 64 MiB batches or
// a whole file's row group.
func TestRowsFor(t *testing.T) {
	file := func(rows, bytes int64) table.FileScanTask {
		b, err := iceberggo.NewDataFileBuilder(*iceberggo.UnpartitionedSpec, iceberggo.EntryContentData, "/t/data/f.parquet", iceberggo.ParquetFile, nil, nil, nil, rows, bytes)
		if err != nil {
			t.Fatal(err)
		}
		return table.FileScanTask{File: b.Build()}
	}
	tests := []struct {
		name             string
		tasks            []table.FileScanTask
		batch, rowGroups int
	}{
		{"1 KiB rows", []table.FileScanTask{file(16384, 16384*1024), file(16384, 16384*1024)}, compactBatchBytes / 1024, compactRowGroupBytes / 1024},
		{"narrow rows hit the row caps", []table.FileScanTask{file(1000, 3000)}, compactBatchRows, maxRowGroupRows},
		{"huge rows keep a floor", []table.FileScanTask{file(10, 100<<20)}, minCompactRows, minCompactRows},
		{"no rows recorded", []table.FileScanTask{file(0, 1<<20)}, minCompactRows, minCompactRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			batch, groups := rowsFor(tc.tasks)
			if batch != tc.batch || groups != tc.rowGroups {
				t.Fatalf("rowsFor = %d, %d; want %d, %d", batch, groups, tc.batch, tc.rowGroups)
			}
		})
	}
}
