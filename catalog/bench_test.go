package catalog

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/persist"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	dir := b.TempDir()
	s, err := Open(context.Background(), Options{Path: dir + "/c.db", Warehouse: dir + "/wh", BcryptCost: bcrypt.MinCost})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.CreateBucket(context.Background(), CreateBucketInput{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateNamespace(context.Background(), "bench", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCreateTable(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		r := TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%07d", i)}
		i++
		if _, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatIceberg}); err != nil {
			b.Fatal(err)
		}
	}
}

// fill inserts n tables straight into SQLite (no directories) so listing
// benchmarks start fast.
func fill(b *testing.B, s *Store, n int, format Format, state LanceState) {
	b.Helper()
	err := s.db.Write(context.Background(), func(tx *persist.Tx) error {
		for i := range n {
			if _, err := tx.ExecContext(context.Background(), `INSERT INTO tables(`+tableColumns+`) VALUES (?, 'bench', 'ns', ?, ?, ?, '', 'tok', ?, '{}', 1, 1)`,
				fmt.Sprintf("00000000-0000-0000-0000-%012d", i), fmt.Sprintf("t%05d", i), string(format),
				fmt.Sprintf("%s/bench/ns/t%05d", s.Warehouse(), i), string(state)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkListTables10k(b *testing.B) {
	cases := []struct {
		name string
		opt  ListTablesOptions
	}{
		{"first page", ListTablesOptions{IncludeDeclared: true}},
		{"deep page", ListTablesOptions{ListOptions: ListOptions{After: "t09000"}, IncludeDeclared: true}},
		{"name filter", ListTablesOptions{NameFilter: "999", IncludeDeclared: true}},
		{"without declared", ListTablesOptions{}},
	}
	s := benchStore(b)
	fill(b, s, 10000, FormatLance, StateDeclared)
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.ListTables(context.Background(), "bench", []string{"ns"}, tc.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("count", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.CountTables(context.Background(), "bench", []string{"ns"}, ListTablesOptions{IncludeDeclared: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list buckets", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := s.ListBuckets(context.Background(), ListOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkVerifyAPIKey(b *testing.B) {
	s := benchStore(b)
	_, secret, err := s.CreateAPIKey(context.Background(), "k", RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.VerifyAPIKey(context.Background(), secret); err != nil {
			b.Fatal(err)
		}
	}
}
