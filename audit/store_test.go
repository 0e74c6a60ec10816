package audit

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the store's tests again on PostgreSQL.
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{
		{Name: "TestInsertQueryFilters", Fn: TestInsertQueryFilters},
		{Name: "TestKeysetPages", Fn: TestKeysetPages},
		{Name: "TestPrune", Fn: TestPrune},
		{Name: "TestPublisherDeliversFromItsCursor", Fn: TestPublisherDeliversFromItsCursor},
	})
}

func openStore(t *testing.T) (*Store, *persist.DB) {
	t.Helper()
	db := persisttest.Open(t, Migrations())
	return NewStore(db), db
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func req(op, principal, bucket, ns, table string, status int, refused bool, at time.Time) Entry {
	return Entry{Type: TypeRequest, Time: at, Surface: "lance", Operation: op, Write: !refused, Refused: refused,
		Principal: principal, Via: "x-api-key", Bucket: bucket, Namespace: ns, Table: table, Status: status,
		RequestID: "r-" + op, Client: "127.0.0.1:1", Method: "POST", Path: "/v1/x", Duration: 1500 * time.Microsecond}
}

func TestInsertQueryFilters(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	in := []Entry{
		req("CreateNamespace", "apikey:k1", "b", "ns", "", 200, false, t0),
		req("DeclareTable", "apikey:k1", "b", "ns", "t", 200, false, t0.Add(time.Minute)),
		req("DropTable", "apikey:k2", "b", "ns.sub", "u", 403, true, t0.Add(2*time.Minute)),
		req("DropTable", "user:admin", "other", "ns", "t", 404, false, t0.Add(3*time.Minute)),
		{Type: TypeTableCreated, Time: t0.Add(4 * time.Minute), Principal: "apikey:k1", Bucket: "b", Namespace: "ns", Table: "t", Data: `{"format":"LANCE"}`},
	}
	in[3].Fault = "not found"
	out, err := s.Insert(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for i, e := range out {
		if e.Seq == 0 || e.ID == "" || ids[e.ID] {
			t.Fatalf("entry %d stored without its own seq and id: %+v", i, e)
		}
		ids[e.ID] = true
	}
	got, err := s.Query(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 5 || got.Entries[0].Type != TypeTableCreated || got.Next != 0 {
		t.Fatalf("Query{} = %d entries newest first, next %d", len(got.Entries), got.Next)
	}
	e := got.Entries[4]
	if e != out[0] {
		t.Fatalf("round trip:\n got %+v\nwant %+v", e, out[0])
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []string // operations, newest first
	}{
		{"requests only", Filter{Types: []string{TypeRequest}}, []string{"DropTable", "DropTable", "DeclareTable", "CreateNamespace"}},
		{"principal", Filter{Principal: "apikey:k1", Types: []string{TypeRequest}}, []string{"DeclareTable", "CreateNamespace"}},
		{"bucket", Filter{Bucket: "b", Types: []string{TypeRequest}}, []string{"DropTable", "DeclareTable", "CreateNamespace"}},
		{"namespace and its children", Filter{Bucket: "b", Namespace: "ns", Types: []string{TypeRequest}}, []string{"DropTable", "DeclareTable", "CreateNamespace"}},
		{"sub-namespace", Filter{Bucket: "b", Namespace: "ns.sub"}, []string{"DropTable"}},
		{"table", Filter{Bucket: "b", Namespace: "ns", Table: "t", Types: []string{TypeRequest}}, []string{"DeclareTable"}},
		{"refused", Filter{Outcome: OutcomeRefused}, []string{"DropTable"}},
		{"failed", Filter{Outcome: OutcomeFailed}, []string{"DropTable"}},
		{"ok", Filter{Outcome: OutcomeOK, Types: []string{TypeRequest}}, []string{"DeclareTable", "CreateNamespace"}},
		{"time window", Filter{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}, []string{"DropTable", "DeclareTable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.Query(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ops []string
			for _, e := range p.Entries {
				ops = append(ops, e.Operation)
			}
			if fmt.Sprint(ops) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", ops, tc.want)
			}
		})
	}
}

func TestKeysetPages(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	var in []Entry
	for i := range 7 {
		in = append(in, req(fmt.Sprint("op", i), "apikey:k1", "b", "ns", "t", 200, false, t0.Add(time.Duration(i)*time.Second)))
	}
	if _, err := s.Insert(ctx, in); err != nil {
		t.Fatal(err)
	}
	var seen []string
	f := Filter{Limit: 3}
	for range 5 {
		p, err := s.Query(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entries {
			seen = append(seen, e.Operation)
		}
		if p.Next == 0 {
			break
		}
		f.Before = p.Next
	}
	if fmt.Sprint(seen) != "[op6 op5 op4 op3 op2 op1 op0]" {
		t.Fatalf("pages gave %v", seen)
	}
	var exported []string
	if err := s.Export(ctx, Filter{Since: t0.Add(2 * time.Second)}, func(e Entry) error {
		exported = append(exported, e.Operation)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(exported) != "[op2 op3 op4 op5 op6]" {
		t.Fatalf("export gave %v", exported)
	}
}

func TestPrune(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	var in []Entry
	for i := range 10 {
		in = append(in, req("op", "apikey:k1", "b", "", "", 200, false, t0.Add(time.Duration(i)*time.Hour)))
	}
	if _, err := s.Insert(ctx, in); err != nil {
		t.Fatal(err)
	}
	n, err := s.Prune(ctx, t0.Add(4*time.Hour))
	if err != nil || n != 4 {
		t.Fatalf("Prune = %d, %v; want 4 (the entries before hour 4)", n, err)
	}
	p, _ := s.Query(ctx, Filter{})
	if len(p.Entries) != 6 || p.Entries[5].Time.Before(t0.Add(4*time.Hour)) {
		t.Fatalf("after prune %d entries remain, oldest %v", len(p.Entries), p.Entries[len(p.Entries)-1].Time)
	}
}
