package iceberg

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/jsonstrict"
	"github.com/google/uuid"
)

func mustPrim(t *testing.T, name string) primType {
	t.Helper()
	p, ok := primitiveType(name)
	if !ok {
		t.Fatalf("%s is not a primitive planning knows", name)
	}
	return p
}

func lit(t *testing.T, typ, raw string) value {
	t.Helper()
	v, err := parseLiteral(mustPrim(t, typ), json.RawMessage(raw))
	if err != nil {
		t.Fatalf("literal %s of %s: %v", raw, typ, err)
	}
	return v
}

// TestBucketHashSpecVectors: the bucket transform hashes as the table
// spec's appendix says (its worked examples), or a bucket-partitioned
// table would be pruned on the wrong buckets.
func TestBucketHashSpecVectors(t *testing.T) {
	cases := []struct {
		typ, raw string
		want     int32
	}{
		{"int", `34`, 2017239379},
		{"long", `34`, 2017239379},
		{"decimal(9,2)", `"14.20"`, -500754589},
		{"date", `"2017-11-16"`, -653330422},
		{"time", `"22:31:08"`, -662762989},
		{"timestamp", `"2017-11-16T22:31:08"`, -2047944441},
		{"timestamptz", `"2017-11-16T14:31:08-08:00"`, -2047944441},
		{"string", `"iceberg"`, 1210000089},
		{"uuid", `"f79c3e09-677c-4bbd-a479-3f349cb785e7"`, 1488055340},
		{"binary", `"00010203"`, -188683207},
	}
	for _, c := range cases {
		b, ok := bucketBytes(mustPrim(t, c.typ), lit(t, c.typ, c.raw))
		if !ok {
			t.Fatalf("%s: no bucket bytes", c.typ)
		}
		if got := int32(murmur3(b)); got != c.want {
			t.Errorf("%s %s: hash %d, want %d", c.typ, c.raw, got, c.want)
		}
	}
}

func TestTransforms(t *testing.T) {
	ts := mustPrim(t, "timestamp")
	at := func(s string) value { return lit(t, "timestamp", `"`+s+`"`) }
	cases := []struct {
		tr   string
		src  primType
		in   value
		want int64
	}{
		{"day", ts, at("1970-01-01T00:00:00"), 0},
		{"day", ts, at("1969-12-31T23:59:59.999999"), -1},
		{"hour", ts, at("1969-12-31T23:00:00"), -1},
		{"month", ts, at("2017-11-16T22:31:08"), 47*12 + 10},
		{"year", ts, at("2017-11-16T22:31:08"), 47},
		{"year", ts, at("1969-06-01T00:00:00"), -1},
		{"month", mustPrim(t, "date"), lit(t, "date", `"1969-12-15"`), -1},
		{"truncate[10]", mustPrim(t, "long"), value{k: kindInt, i: -1}, -10},
		{"truncate[10]", mustPrim(t, "long"), value{k: kindInt, i: 19}, 10},
		{"bucket[16]", mustPrim(t, "int"), value{k: kindInt, i: 34}, int64(2017239379 % 16)},
	}
	for _, c := range cases {
		tr, ok := parseTransform(c.tr)
		if !ok {
			t.Fatalf("transform %s", c.tr)
		}
		got, ok := tr.apply(c.src, c.in)
		if !ok || got.i != c.want {
			t.Errorf("%s(%v) = %v %v, want %d", c.tr, c.in, got, ok, c.want)
		}
	}
	tr, _ := parseTransform("truncate[3]")
	if got, _ := tr.apply(mustPrim(t, "string"), value{k: kindString, s: "héllo"}); got.s != "hél" {
		t.Errorf("truncate[3] of a string = %q, want %q (code points, not bytes)", got.s, "hél")
	}
	d, _ := parseTransform("truncate[50]")
	dv := lit(t, "decimal(9,2)", `"-0.05"`)
	if got, _ := d.apply(mustPrim(t, "decimal(9,2)"), dv); got.d.Cmp(big.NewInt(-50)) != 0 {
		t.Errorf("truncate[50] of -0.05 = %v, want -0.50", got.d)
	}
	if _, ok := parseTransform("bucket[0]"); ok {
		t.Error("bucket[0] was accepted")
	}
}

// TestBoundsDecode: bounds in the spec's single-value serialization read
// back as the values written, promoted widths included.
func TestBoundsDecode(t *testing.T) {
	le32 := func(v int32) []byte { b := make([]byte, 4); binary.LittleEndian.PutUint32(b, uint32(v)); return b }
	le64 := func(v int64) []byte { b := make([]byte, 8); binary.LittleEndian.PutUint64(b, uint64(v)); return b }
	u := uuid.MustParse("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	cases := []struct {
		typ  string
		b    []byte
		want value
	}{
		{"int", le32(-7), value{k: kindInt, i: -7}},
		{"long", le32(-7), value{k: kindInt, i: -7}}, // written when the column was an int
		{"long", le64(1 << 40), value{k: kindInt, i: 1 << 40}},
		{"double", le64(int64(math.Float64bits(2.5))), value{k: kindFloat, f: 2.5}},
		{"double", le32(int32(math.Float32bits(1.5))), value{k: kindFloat, f: 1.5}},
		{"string", []byte("abc"), value{k: kindString, s: "abc"}},
		{"uuid", u[:], value{k: kindBytes, s: string(u[:])}},
		{"boolean", []byte{1}, value{k: kindBool, b: true}},
	}
	for _, c := range cases {
		got, ok := decodeBound(mustPrim(t, c.typ), c.b)
		if !ok || compare(got, c.want) != 0 || got.k != c.want.k {
			t.Errorf("%s % x = %+v %v, want %+v", c.typ, c.b, got, ok, c.want)
		}
	}
	dec, ok := decodeBound(mustPrim(t, "decimal(9,2)"), []byte{0xfa, 0x74}) // -1420
	if !ok || dec.d.Int64() != -1420 {
		t.Errorf("decimal bound = %v %v, want -1420", dec.d, ok)
	}
	if _, ok := decodeBound(mustPrim(t, "int"), []byte{1, 2}); ok {
		t.Error("a 2-byte int bound was read")
	}
}

var testSchema = Schema{Fields: []Field{
	{ID: 1, Name: "id", Type: Type{Primitive: "long"}, Required: true},
	{ID: 2, Name: "Region", Type: Type{Primitive: "string"}},
	{ID: 3, Name: "loc", Type: Type{Struct: []Field{{ID: 4, Name: "lat", Type: Type{Primitive: "double"}}}}},
	{ID: 5, Name: "tags", Type: Type{List: &ListType{ElementID: 6, Element: Type{Primitive: "string"}}}},
	{ID: 7, Name: "v", Type: Type{Primitive: "variant"}},
}}

// TestBindFilter: both spellings of the spec's predicates bind, NOT is
// pushed to the leaves, literal-first comparisons are flipped, and what
// cannot be bounded binds without pruning anything.
func TestBindFilter(t *testing.T) {
	cases := []struct {
		name, filter string
		sensitive    bool
		check        func(expr) bool
	}{
		{"deprecated term/value", `{"type":"lt","term":"id","value":5}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.op == "lt" && p.field.id == 1 && p.lits[0].i == 5
		}},
		{"reference objects", `{"type":"gt-eq","left":{"type":"reference","name":"loc.lat"},"right":1.5}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.op == "gt-eq" && p.field.id == 4 && p.lits[0].f == 1.5
		}},
		{"reference by id", `{"type":"eq","left":{"type":"reference","id":1},"right":{"type":"literal","value":3}}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.field.id == 1 && p.lits[0].i == 3
		}},
		{"literal first is flipped", `{"type":"lt","left":5,"right":{"type":"reference","name":"id"}}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.op == "gt" && p.field.id == 1
		}},
		{"not pushed down", `{"type":"not","child":{"type":"and","left":{"type":"eq","term":"id","value":1},"right":{"type":"is-null","term":"Region"}}}`, true, func(e expr) bool {
			o, ok := e.(exprOr)
			l, _ := o.l.(exprPred)
			r, _ := o.r.(exprPred)
			return ok && l.op == "not-eq" && r.op == "not-null"
		}},
		{"double negation", `{"type":"not","child":{"type":"not","child":false}}`, true, func(e expr) bool { _, ok := e.(exprFalse); return ok }},
		{"case insensitive", `{"type":"eq","term":"REGION","value":"eu"}`, false, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.field.id == 2
		}},
		{"in with typed literals", `{"type":"in","child":{"type":"reference","name":"id"},"values":{"type":"literals","values":[1,2],"data-type":"long"}}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && len(p.lits) == 2
		}},
		{"transform term prunes nothing", `{"type":"eq","term":{"type":"transform","transform":"bucket[4]","term":"id"},"value":1}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.field == nil
		}},
		{"list elements are repeated", `{"type":"eq","term":"tags.element","value":"x"}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.field.repeated
		}},
		{"a variant column prunes nothing", `{"type":"is-null","term":"v"}`, true, func(e expr) bool {
			p, ok := e.(exprPred)
			return ok && p.field == nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := bindFilter(json.RawMessage(c.filter), testSchema, c.sensitive)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(e) {
				t.Fatalf("bound to %#v", e)
			}
		})
	}
	for _, bad := range []string{
		`{"type":"eq","term":"region","value":"eu"}`, // case sensitive by default
		`{"type":"eq","term":"id","value":"x"}`,
		`{"type":"is-nan","term":"id"}`,
		`{"type":"starts-with","term":"id","value":1}`,
		`{"type":"and","left":true}`,
		`{"type":"in","term":"id"}`,
		`{"type":"eq","term":"id"}`,
		`[1,2]`,
		`{"type":"eq","term":"id","value":null}`,
		`{"type":"eq","left":{"type":"reference","id":99},"right":1}`,
	} {
		_, err := bindFilter(json.RawMessage(bad), testSchema, true)
		var ie *fault.Error
		if !errors.As(err, &ie) || !errors.Is(err, fault.Invalid) || ie.Field != "filter" {
			t.Errorf("%s: %v; want an fault.Invalid on filter", bad, err)
		}
	}
}

// TestPruningIsSafe: a range is pruned only when no value in it can match;
// truncated string bounds (a prefix below, a bumped prefix above), nulls,
// NaN and missing bounds all keep the file.
func TestPruningIsSafe(t *testing.T) {
	str := func(s string) value { return value{k: kindString, s: s} }
	i := func(n int64) value { return value{k: kindInt, i: n} }
	r := func(lo, hi value) valueRange {
		return valueRange{lower: lo, upper: hi, hasLower: true, hasUpper: true, boundsComparable: true}
	}
	cases := []struct {
		name string
		op   string
		lits []value
		r    valueRange
		want bool
	}{
		{"eq inside", "eq", []value{i(5)}, r(i(1), i(9)), true},
		{"eq below", "eq", []value{i(0)}, r(i(1), i(9)), false},
		{"lt at lower", "lt", []value{i(1)}, r(i(1), i(9)), false},
		{"lt-eq at lower", "lt-eq", []value{i(1)}, r(i(1), i(9)), true},
		{"gt at upper", "gt", []value{i(9)}, r(i(1), i(9)), false},
		{"in all outside", "in", []value{i(0), i(10)}, r(i(1), i(9)), false},
		{"in one inside", "in", []value{i(0), i(3)}, r(i(1), i(9)), true},
		{"no bounds keeps", "eq", []value{i(0)}, valueRange{boundsComparable: true}, true},
		{"all null prunes comparisons", "eq", []value{i(0)}, valueRange{allNull: true}, false},
		{"all null keeps is-null", "is-null", nil, valueRange{allNull: true, mayHaveNull: true}, true},
		{"no nulls prunes is-null", "is-null", nil, r(i(1), i(9)), false},
		{"not-eq never prunes", "not-eq", []value{i(5)}, r(i(5), i(5)), true},
		{"truncated string upper bound", "eq", []value{str("abcz")}, r(str("abb"), str("abd")), true},
		{"starts-with below a truncated lower", "starts-with", []value{str("ab")}, r(str("abc"), str("abz")), true},
		{"starts-with past the upper", "starts-with", []value{str("b")}, r(str("aa"), str("az")), false},
		{"NaN bound keeps", "lt", []value{{k: kindFloat, f: 1}}, r(value{k: kindFloat, f: math.NaN()}, value{k: kindFloat, f: math.NaN()}), true},
	}
	for _, c := range cases {
		if got := rangeMightMatch(c.op, c.lits, c.r); got != c.want {
			t.Errorf("%s: might match %v, want %v", c.name, got, c.want)
		}
	}
	// An empty file matches nothing; metrics of a repeated column say
	// nothing about one row.
	e, _ := bindFilter(json.RawMessage(`{"type":"eq","term":"tags.element","value":"x"}`), testSchema, true)
	if metricsMightMatch(e, fileMetrics{records: 0}) {
		t.Error("an empty file was kept")
	}
	if !metricsMightMatch(e, fileMetrics{records: 5, lowers: map[int][]byte{6: []byte("a")}, uppers: map[int][]byte{6: []byte("b")}}) {
		t.Error("bounds of a list element pruned a file")
	}
}

// planEnv is a catalog with an empty Iceberg table and a planner whose
// clock the test moves.
func planEnv(t *testing.T, limits PlanLimits) (*ScanPlans, catalog.TableRef, *time.Time) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "lake", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tables := New(Config{Store: st})
	if _, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "t", Schema: &testSchema, Properties: map[string]string{"format-version": "3"}}); err != nil {
		t.Fatal(err)
	}
	p := NewScanPlans(tables, nil, limits)
	t.Cleanup(p.Close)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	return p, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "t"}, &now
}

func fakeTasks(n int) []plannedTask {
	out := make([]plannedTask, n)
	for i := range out {
		out[i] = plannedTask{file: ContentFile{Content: "data", FilePath: "f" + strings.Repeat("x", i%3), Partition: []any{}}}
	}
	return out
}

// TestScanPlansBounded: plans expire, their count and the tasks they hold
// are capped (ErrBusy past either), cancelling releases a plan's tasks, and
// a plan of a table is not found through another.
func TestScanPlansBounded(t *testing.T) {
	ctx := context.Background()
	p, ref, now := planEnv(t, PlanLimits{MaxPlans: 2, TaskSize: 2, MaxHeldTasks: 4, TTL: time.Minute})
	res, err := p.Plan(ctx, ref, ScanRequest{})
	if err != nil || res.Status != PlanCompleted || len(res.Tasks.FileScanTasks) != 0 {
		t.Fatalf("plan of an empty table: %+v, %v", res, err)
	}
	tableID := mustTableID(t, p, ref)
	hold := func(n int) (*scanPlan, error) {
		sp := &scanPlan{id: newPlanID(), tableID: tableID}
		return sp, p.finish(sp, fakeTasks(n), ScanStats{}, true)
	}
	if _, err := hold(7); !errors.Is(err, ErrBusy) { // 2 inline, 3 plan tasks holding 5
		t.Fatalf("a plan past MaxHeldTasks: %v, want ErrBusy", err)
	}
	big, err := hold(5) // 2 inline, 3 held
	if err != nil || len(big.first.PlanTasks) != 2 || p.held != 3 {
		t.Fatalf("held plan: %+v, %v (held %d)", big.first, err, p.held)
	}
	big2, err := hold(3) // 2 inline, 1 held; the empty plan makes room
	if err != nil || p.held != 4 {
		t.Fatalf("second held plan: %v (held %d)", err, p.held)
	}
	if _, err := p.Result(ctx, ref, res.PlanID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("the plan evicted for room: %v, want not found", err)
	}
	if _, err := hold(1); !errors.Is(err, ErrBusy) {
		t.Fatalf("a third plan with MaxPlans 2, both holding tasks: %v, want ErrBusy", err)
	}
	// Fetching every task lets the plan be evicted for the next one.
	for _, h := range big.first.PlanTasks {
		if env, err := p.Tasks(ctx, ref, h); err != nil || len(env.FileScanTasks) == 0 {
			t.Fatalf("tasks %s: %+v, %v", h, env, err)
		}
	}
	if _, err := p.Tasks(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "nope"}, big.first.PlanTasks[0]); !errors.Is(err, fault.NotFound) {
		t.Fatalf("tasks through another table: %v", err)
	}
	again, err := hold(3)
	if err != nil || p.held != 2 {
		t.Fatalf("plan after the fetched one: %v (held %d, want 2)", err, p.held)
	}
	if err := p.Cancel(ctx, ref, again.id); err != nil || p.held != 1 {
		t.Fatalf("cancel: %v (held %d)", err, p.held)
	}
	if r, err := p.Result(ctx, ref, again.id); err != nil || r.Status != PlanCancelled {
		t.Fatalf("a cancelled plan: %+v, %v", r, err)
	}
	*now = now.Add(2 * time.Minute)
	for _, id := range []string{again.id, big2.id} {
		if _, err := p.Result(ctx, ref, id); !errors.Is(err, fault.NotFound) {
			t.Fatalf("plan %s past its TTL: %v, want not found", id, err)
		}
	}
	if p.held != 0 {
		t.Fatalf("expired plans still hold %d tasks", p.held)
	}
}

func mustTableID(t *testing.T, p *ScanPlans, ref catalog.TableRef) string {
	t.Helper()
	tb, err := p.tables.Table(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return tb.ID
}

// FuzzBindFilter: a filter either binds, or is refused as fault.Invalid on
// "filter" with a sentence; a bound filter evaluates against any file
// without panicking, and never prunes a file with no metrics.
func FuzzBindFilter(f *testing.F) {
	for _, s := range []string{
		`true`, `{"type":"lt","term":"id","value":5}`,
		`{"type":"not","child":{"type":"or","left":{"type":"in","term":"Region","values":["a","b"]},"right":{"type":"is-null","term":"loc.lat"}}}`,
		`{"type":"starts-with","left":{"type":"reference","name":"Region"},"right":"ab"}`,
		`{"type":"eq","term":{"type":"transform","transform":"day","term":"id"},"value":3}`,
		`{"type":"gt","left":7,"right":{"type":"reference","id":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if jsonstrict.Check(raw) != nil || len(raw) > 1<<16 {
			return
		}
		e, err := bindFilter(raw, testSchema, true)
		if err != nil {
			var ie *fault.Error
			if !errors.As(err, &ie) || ie.Field != "filter" || ie.Message == "" {
				t.Fatalf("refusal %v is not a filter fault.Invalid with a sentence", err)
			}
			return
		}
		if !metricsMightMatch(e, fileMetrics{records: 3}) && containsOnlyNonConstant(e) {
			t.Fatalf("%s pruned a file that has no metrics", raw)
		}
		metricsMightMatch(e, fileMetrics{records: 3, nulls: map[int]int64{1: 3, 2: 0}, values: map[int]int64{1: 3, 2: 3},
			lowers: map[int][]byte{1: {1, 0, 0, 0, 0, 0, 0, 0}, 2: []byte("a")}, uppers: map[int][]byte{1: {9}, 2: []byte("zz")}})
	})
}

// containsOnlyNonConstant reports whether e has no false leaf, so that
// only the metrics could make it prune.
func containsOnlyNonConstant(e expr) bool {
	switch x := e.(type) {
	case exprFalse:
		return false
	case exprAnd:
		return containsOnlyNonConstant(x.l) && containsOnlyNonConstant(x.r)
	case exprOr:
		return containsOnlyNonConstant(x.l) || containsOnlyNonConstant(x.r)
	}
	return true
}

// TestPlanJSONNeverFails: a NaN or infinite partition value is written as
// the string Java writes, so an answer always encodes (encoding/json
// refuses NaN, which would have been a 500).
func TestPlanJSONNeverFails(t *testing.T) {
	d := mustPrim(t, "double")
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1.5} {
		if _, err := json.Marshal([]any{jsonValue(d, value{k: kindFloat, f: f}), genericJSON(f)}); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
}
