package icebergrest

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/google/uuid"
)

// appendCommit stages an append of rows from..to-1 to tbl and returns it as
// one table's part of a multi-table transaction.
func appendCommit(t *testing.T, ctx context.Context, tbl *table.Table, from, to int64) table.TableCommit {
	t.Helper()
	tx := tbl.NewTransaction()
	if err := tx.AppendTable(ctx, batch(from, to), 1024, nil); err != nil {
		t.Fatalf("stage append: %v", err)
	}
	c, err := tx.TableCommit()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func metadataFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	dir := strings.TrimPrefix(tbl.Location(), "file://") // locations are file:// URIs
	m, err := filepath.Glob(filepath.Join(dir, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		t.Fatalf("no metadata files under %s", dir)
	}
	return m
}

func loadIDs(t *testing.T, ctx context.Context, cat *rest.Catalog, ident table.Identifier) []int64 {
	t.Helper()
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("load %v: %v", ident, err)
	}
	return scanIDs(t, ctx, tbl)
}

// TestMultiTableTransaction drives POST /v1/{prefix}/transactions/commit
// with iceberg-go: appends to two tables land together, and when a
// requirement fails on the second table neither changes and no metadata
// file is left behind.
func TestMultiTableTransaction(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	ia, ib := table.Identifier{"sales", "a"}, table.Identifier{"sales", "b"}
	a := createEventsTable(t, ctx, cat, ia)
	b := createEventsTable(t, ctx, cat, ib)

	if err := cat.CommitTransaction(ctx, []table.TableCommit{appendCommit(t, ctx, a, 0, 10), appendCommit(t, ctx, b, 100, 105)}); err != nil {
		t.Fatalf("two-table commit: %v", err)
	}
	if got := loadIDs(t, ctx, cat, ia); !slices.Equal(got, seq(0, 10)) {
		t.Fatalf("a = %v", got)
	}
	if got := loadIDs(t, ctx, cat, ib); !slices.Equal(got, seq(100, 105)) {
		t.Fatalf("b = %v", got)
	}

	a, _ = cat.LoadTable(ctx, ia)
	b, _ = cat.LoadTable(ctx, ib)
	stale := b.CurrentSnapshot().SnapshotID - 1
	filesA, filesB := metadataFiles(t, a), metadataFiles(t, b)
	cases := []struct {
		name   string
		second table.TableCommit
	}{
		{"wrong uuid on the second", table.TableCommit{Identifier: ib,
			Requirements: []table.Requirement{table.AssertTableUUID(uuid.New())},
			Updates:      []table.Update{table.NewSetPropertiesUpdate(iceberggo.Properties{"k": "v"})}}},
		{"stale snapshot on the second", table.TableCommit{Identifier: ib,
			Requirements: []table.Requirement{table.AssertRefSnapshotID("main", &stale)},
			Updates:      []table.Update{table.NewSetPropertiesUpdate(iceberggo.Properties{"k": "v"})}}},
		{"second table missing", table.TableCommit{Identifier: table.Identifier{"sales", "nope"},
			Updates: []table.Update{table.NewSetPropertiesUpdate(iceberggo.Properties{"k": "v"})}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := cat.CommitTransaction(ctx, []table.TableCommit{appendCommit(t, ctx, a, 10, 20), c.second})
			if err == nil {
				t.Fatal("transaction with a failing second table succeeded")
			}
			if !errors.Is(err, rest.ErrCommitFailed) && !errors.Is(err, icecatalog.ErrNoSuchTable) {
				t.Fatalf("error %v, want CommitFailed or NoSuchTable", err)
			}
			if got := loadIDs(t, ctx, cat, ia); !slices.Equal(got, seq(0, 10)) {
				t.Fatalf("a changed although b failed: %v", got)
			}
			reloaded, err := cat.LoadTable(ctx, ib)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := reloaded.Properties()["k"]; ok {
				t.Fatal("b changed although its requirement failed")
			}
			if got := metadataFiles(t, a); !slices.Equal(got, filesA) {
				t.Fatalf("a's metadata files %v, want %v (the failed transaction's were not removed)", got, filesA)
			}
			if got := metadataFiles(t, b); !slices.Equal(got, filesB) {
				t.Fatalf("b's metadata files %v, want %v", got, filesB)
			}
		})
	}
}
