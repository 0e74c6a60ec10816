package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

func names(items []Table) string {
	var out []string
	for _, t := range items {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func TestListTables(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	mustNamespace(t, s, "any-b", "ns", "child") // tables there are not "directly in" ns
	mustTable(t, s, TableRef{Bucket: "any-b", Namespace: []string{"ns", "child"}, Name: "nested"}, FormatIceberg)
	for _, n := range []string{"alpha", "beta", "gamma"} {
		mustTable(t, s, ref("any-b", n), FormatIceberg)
	}
	live := mustTable(t, s, ref("any-b", "lance_live"), FormatLance)
	if err := os.MkdirAll(filepath.Join(diskPath(live.Location), "_versions"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustTable(t, s, ref("any-b", "lance_declared"), FormatLance)
	mustTable(t, s, ref("any-b", "lance_gone"), FormatLance)
	if _, err := s.DeregisterTable(ctx, ref("any-b", "lance_gone")); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name  string
		opt   ListTablesOptions
		want  string
		next  string
		count int
	}{
		{"default hides declared and deregistered", ListTablesOptions{}, "alpha,beta,gamma,lance_live", "", 4},
		{"include declared", ListTablesOptions{IncludeDeclared: true}, "alpha,beta,gamma,lance_declared,lance_live", "", 5},
		{"include everything", ListTablesOptions{IncludeDeclared: true, IncludeDeregistered: true}, "alpha,beta,gamma,lance_declared,lance_gone,lance_live", "", 6},
		{"format filter", ListTablesOptions{Format: FormatLance, IncludeDeclared: true}, "lance_declared,lance_live", "", 2},
		{"name filter of two characters matches only starts", ListTablesOptions{NameFilter: "mm", IncludeDeclared: true}, "", "", 0},
		{"name filter of two characters", ListTablesOptions{NameFilter: "ga", IncludeDeclared: true}, "gamma", "", 1},
		{"name filter is case-sensitive", ListTablesOptions{NameFilter: "ALPHA"}, "", "", 0},
		{"name filter matches inside names", ListTablesOptions{NameFilter: "amm"}, "gamma", "", 1},
		{"first page", ListTablesOptions{ListOptions: ListOptions{Limit: 2}, IncludeDeclared: true}, "alpha,beta", "beta", 5},
		{"second page", ListTablesOptions{ListOptions: ListOptions{After: "beta", Limit: 2}, IncludeDeclared: true}, "gamma,lance_declared", "lance_declared", 5},
		{"last page", ListTablesOptions{ListOptions: ListOptions{After: "lance_declared", Limit: 2}, IncludeDeclared: true}, "lance_live", "", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, next, err := s.ListTables(ctx, "any-b", []string{"ns"}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(items); got != tc.want || next != tc.next {
				t.Errorf("got %q next %q, want %q next %q", got, next, tc.want, tc.next)
			}
			n, err := s.CountTables(ctx, "any-b", []string{"ns"}, tc.opt)
			if err != nil || n != tc.count {
				t.Errorf("CountTables = %d, %v, want %d", n, err, tc.count)
			}
		})
	}
	t.Run("skip tables", func(t *testing.T) {
		for _, c := range []struct {
			n     int
			opt   ListTablesOptions
			after string
		}{
			{0, ListTablesOptions{IncludeDeclared: true}, ""},
			{1, ListTablesOptions{IncludeDeclared: true}, "alpha"},
			{4, ListTablesOptions{IncludeDeclared: true}, "lance_declared"},
			{4, ListTablesOptions{}, "lance_live"},
			{2, ListTablesOptions{Format: FormatLance, IncludeDeclared: true}, "lance_live"},
			{99, ListTablesOptions{IncludeDeclared: true}, "lance_live"},
		} {
			got, err := s.SkipTables(ctx, "any-b", []string{"ns"}, c.opt, c.n)
			if err != nil || got != c.after {
				t.Errorf("SkipTables(%d, %+v) = %q, %v, want %q", c.n, c.opt, got, err, c.after)
			}
		}
	})
	t.Run("states are refreshed in listings", func(t *testing.T) {
		items, _, _ := s.ListTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{Format: FormatLance, IncludeDeclared: true})
		for _, tb := range items {
			want := StateDeclared
			if tb.Name == "lance_live" {
				want = StateCreated
			}
			if tb.State != want {
				t.Errorf("%s state %q, want %q", tb.Name, tb.State, want)
			}
		}
	})
	t.Run("declared table appears once written", func(t *testing.T) {
		d, _ := s.GetTable(ctx, ref("any-b", "lance_declared"))
		if err := os.MkdirAll(filepath.Join(diskPath(d.Location), "_versions"), 0o755); err != nil {
			t.Fatal(err)
		}
		items, _, _ := s.ListTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{Format: FormatLance})
		if got := names(items); got != "lance_declared,lance_live" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("missing namespace", func(t *testing.T) {
		// Each listing checks the namespace only when it found nothing:
		// every way of listing still tells a missing one from an empty one.
		mustNamespace(t, s, "any-b", "empty")
		for _, opt := range []ListTablesOptions{{}, {IncludeDeclared: true}, {Format: FormatLance}, {NameFilter: "x"}} {
			_, _, err := s.ListTables(ctx, "any-b", []string{"zz"}, opt)
			wantKind(t, err, fault.NotFound)
			_, err = s.CountTables(ctx, "any-b", []string{"zz"}, opt)
			wantKind(t, err, fault.NotFound)
			_, _, err = s.ListTableNames(ctx, "any-b", []string{"zz"}, opt)
			wantKind(t, err, fault.NotFound)
			_, _, err = s.ListTables(ctx, "no-such-bucket", []string{"ns"}, opt)
			wantKind(t, err, fault.NotFound)
			if items, _, err := s.ListTables(ctx, "any-b", []string{"empty"}, opt); err != nil || len(items) != 0 {
				t.Errorf("empty namespace %+v: %v, %v", opt, items, err)
			}
			if n, err := s.CountTables(ctx, "any-b", []string{"empty"}, opt); err != nil || n != 0 {
				t.Errorf("count of an empty namespace %+v: %d, %v", opt, n, err)
			}
		}
	})
}

func TestListAllTables(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	mustNamespace(t, s, "any-b", "a")
	var want []string
	for _, b := range []string{"any-b", "ice-b"} {
		for _, ns := range []string{"a", "ns"} {
			if b == "ice-b" && ns == "a" {
				continue
			}
			for i := range 3 {
				r := TableRef{Bucket: b, Namespace: []string{ns}, Name: fmt.Sprintf("t%d", i)}
				mustTable(t, s, r, FormatIceberg)
				want = append(want, r.String())
			}
		}
	}
	mustTable(t, s, ref("any-b", "lance1"), FormatLance)

	collect := func(t *testing.T, buckets []string, limit int) []string {
		var got []string
		cursor := ""
		for range 20 {
			items, next, err := s.ListAllTables(ctx, FormatIceberg, buckets, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range items {
				if tb.Format != FormatIceberg {
					t.Errorf("%s has format %s", tb.Name, tb.Format)
				}
				got = append(got, TableRef{tb.Bucket, tb.Namespace, tb.Name}.String())
			}
			if next == "" {
				return got
			}
			cursor = next
		}
		t.Fatal("cursor never ends")
		return nil
	}
	cases := []struct {
		name    string
		buckets []string
		limit   int
		want    []string
	}{
		{"all buckets, pages of 4", nil, 4, want},
		{"all buckets, one page", nil, 100, want},
		{"one bucket", []string{"ice-b"}, 2, want[6:]},
		{"no buckets allowed", []string{}, 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, tc.buckets, tc.limit)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
	t.Run("bad cursor", func(t *testing.T) {
		_, _, err := s.ListAllTables(ctx, FormatIceberg, nil, "not-a-cursor!", 10)
		wantKind(t, err, fault.Invalid)
	})
}
