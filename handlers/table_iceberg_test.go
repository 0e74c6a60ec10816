package handlers

import (
	"testing"

	"github.com/floe/floe/iceberg"
)

func TestIcebergFigures(t *testing.T) {
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"absent count", icebergCount(-1), "—"},
		{"zero count", icebergCount(0), "0"},
		{"grouped count", icebergCount(1234567), "1,234,567"},
		{"absent size", icebergBytes(-1), "—"},
		{"bytes", icebergBytes(1023), "1023 B"},
		{"kibibytes", icebergBytes(1536), "1.5 KiB"},
		{"mebibytes", icebergBytes(5 << 20), "5.0 MiB"},
		{"gibibytes", icebergBytes(3<<30 + 1<<29), "3.5 GiB"},
		{"note sentence", icebergSentence("skipped a.orc: ORC files are not read here"), "Skipped a.orc: ORC files are not read here."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestIcebergGridFooter(t *testing.T) {
	row := []iceberg.Cell{{Text: "1"}, {Null: true}}
	cases := []struct {
		name  string
		rows  iceberg.Rows
		total int64
		want  string
		notes int
	}{
		{"all rows", iceberg.Rows{SnapshotID: 9, Rows: [][]iceberg.Cell{row, row}, FilesRead: 1}, 2, "All 2 rows of snapshot 9, read from 1 data file.", 0},
		{"more with total", iceberg.Rows{SnapshotID: 9, Rows: [][]iceberg.Cell{row}, More: true, FilesRead: 2}, 5000, "First 1 of 5,000 rows of snapshot 9, read from 2 data files.", 0},
		{"more without total", iceberg.Rows{SnapshotID: 9, Rows: [][]iceberg.Cell{row}, More: true, FilesRead: 2}, -1, "First 1 row of snapshot 9, read from 2 data files; the snapshot holds more.", 0},
		{"delete note folded into the warning", iceberg.Rows{SnapshotID: 9, HasDeleteFiles: true,
			Notes: []string{"this snapshot has delete files, which are not applied here: some rows shown may have been deleted", "manifest m.avro is unreadable: boom"}}, 0, "All 0 rows of snapshot 9, read from 0 data files.", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := icebergGrid(&tc.rows, tc.total)
			if g.Footer != tc.want {
				t.Fatalf("footer %q, want %q", g.Footer, tc.want)
			}
			if len(g.Notes) != tc.notes {
				t.Fatalf("notes %v", g.Notes)
			}
			for i, r := range g.Rows {
				if !r[1].Null || r[0].Text != "1" {
					t.Fatalf("row %d cells %+v", i, r)
				}
			}
		})
	}
}
