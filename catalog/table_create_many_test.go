package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

func TestCreateTablesAllOrNone(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	var ins []CreateTableInput
	for i := range 50 {
		ins = append(ins, CreateTableInput{TableRef: ref("lance-b", fmt.Sprintf("t%02d", i)), Format: FormatLance})
	}
	ins = append(ins, CreateTableInput{TableRef: ref("any-b", "orders"), Format: FormatIceberg,
		Properties: map[string]string{"owner": "sales"}, Tags: map[string]string{"team": "sales"}})
	got, err := s.CreateTables(ctx, ins)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ins) {
		t.Fatalf("%d tables back for %d asked", len(got), len(ins))
	}
	for i, tb := range got {
		if tb.Name != ins[i].Name || tb.ID == "" {
			t.Fatalf("table %d: %+v", i, tb)
		}
		read, err := s.GetTable(ctx, ins[i].TableRef)
		if err != nil || read.ID != tb.ID || read.Location != tb.Location {
			t.Fatalf("read back %s: %+v %v", ins[i].Name, read, err)
		}
	}
	if got[0].State != StateDeclared || !exists(t, filepath.Join(diskPath(got[0].Location), ".lance-reserved")) {
		t.Errorf("lance table state %q, or no marker", got[0].State)
	}
	if got[50].Properties["owner"] != "sales" {
		t.Errorf("properties %v", got[50].Properties)
	}
	if n, err := s.CountTables(ctx, "lance-b", []string{"ns"}, ListTablesOptions{IncludeDeclared: true}); err != nil || n != 50 {
		t.Errorf("count %d %v", n, err)
	}

	// Any table the batch cannot create leaves every other one uncreated.
	bad := []struct {
		name string
		last CreateTableInput
		kind error
		msg  string
	}{
		{"existing name", CreateTableInput{TableRef: ref("lance-b", "t07"), Format: FormatLance}, fault.AlreadyExists, `table "t07" already exists`},
		{"existing name of the other format", CreateTableInput{TableRef: ref("any-b", "orders"), Format: FormatLance}, fault.Conflict, "as an ICEBERG table"},
		{"twice in the batch", CreateTableInput{TableRef: ref("lance-b", "new00"), Format: FormatLance}, fault.AlreadyExists, "appears twice"},
		{"bucket of the other format", CreateTableInput{TableRef: ref("lance-b", "x"), Format: FormatIceberg}, fault.Conflict, "declared for LANCE"},
		{"missing namespace", CreateTableInput{TableRef: TableRef{Bucket: "any-b", Namespace: []string{"nope"}, Name: "t"}, Format: FormatLance}, fault.NotFound, `namespace "nope"`},
		{"bad name", CreateTableInput{TableRef: ref("lance-b", "T$"), Format: FormatLance}, fault.Invalid, "table name"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			var batch []CreateTableInput
			for i := range 20 {
				batch = append(batch, CreateTableInput{TableRef: ref("lance-b", fmt.Sprintf("new%02d", i)), Format: FormatLance})
			}
			batch = append(batch, tc.last)
			_, err := s.CreateTables(ctx, batch)
			ce := wantKind(t, err, tc.kind)
			if !strings.Contains(ce.Message, tc.msg) {
				t.Errorf("message %q lacks %q", ce.Message, tc.msg)
			}
			if _, err := s.GetTable(ctx, ref("lance-b", "new00")); !errors.Is(err, fault.NotFound) {
				t.Errorf("new00 after a failed batch: %v", err)
			}
		})
	}
	t.Run("too many", func(t *testing.T) {
		_, err := s.CreateTables(ctx, make([]CreateTableInput, MaxCreateTables+1))
		wantKind(t, err, fault.Invalid)
	})
}
