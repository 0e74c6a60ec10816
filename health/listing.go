package health

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// SortKey is a column a table list can be sorted by.
type SortKey string

const (
	SortName    SortKey = "name"
	SortRows    SortKey = "rows"
	SortSize    SortKey = "size"
	SortChanged SortKey = "changed" // the newest of the catalog's change and the observed version's time
	SortHealth  SortKey = "health"  // worst first when descending; unknown (not observed) last either way
)

// Columns of other lists that sort by Position (buckets, API keys).
const (
	SortTables  SortKey = "tables"
	SortCreated SortKey = "created"
	SortUsed    SortKey = "used"
)

// SortKeys are a table list's sortable columns, in the order it shows them.
var SortKeys = []SortKey{SortName, SortRows, SortSize, SortChanged, SortHealth}

// ParseSortKey accepts a SortKeys value; "" is SortName.
func ParseSortKey(s string) (SortKey, bool) {
	if s == "" {
		return SortName, true
	}
	k := SortKey(s)
	return k, slices.Contains(SortKeys, k)
}

// Order is a sort column and direction.
type Order struct {
	Key  SortKey
	Desc bool
}

// ListFilter narrows a sorted list: the console's name filter
// (catalog.NameFilterMatches) and the "needs attention" filter.
type ListFilter struct {
	Name      string
	Attention bool
}

// ListedTable is one row of a sorted list: the catalog's key of the table
// and the overview it was sorted by.
type ListedTable struct {
	catalog.TableKey
	Overview Overview
}

// value is the figure a table sorts by under k; ok is false when it is
// not known (not observed), which sorts last in either direction.
func (t *ListedTable) value(k SortKey) (int64, bool) {
	ov := &t.Overview
	switch k {
	case SortRows:
		return ov.Rows, ov.HasRows
	case SortSize:
		return ov.Bytes, ov.HasBytes
	case SortChanged:
		if ov.LastChange.IsZero() {
			return 0, false
		}
		return ov.LastChange.UnixMicro(), true
	case SortHealth:
		return int64(ov.State), ov.State != Unknown
	}
	return 0, true
}

// Position is where a row sits in an order: its figure and its name (the
// tie-break, always ascending, so a page boundary is exact). Lists other
// than tables (buckets, keys) sort by it too.
type Position struct {
	Value int64
	Known bool // false: the figure is not known, and sorts last either way
	Name  string
}

type position = Position

func (t *ListedTable) position(k SortKey) position {
	v, ok := t.value(k)
	return position{Value: v, Known: ok, Name: t.Name}
}

// ComparePositions orders two positions under o: by name alone for
// SortName, else known figures first, by figure, then by name.
func ComparePositions(o Order, a, b Position) int { return comparePositions(o, a, b) }

func comparePositions(o Order, a, b position) int {
	if o.Key == SortName {
		if o.Desc {
			return cmp.Compare(b.Name, a.Name)
		}
		return cmp.Compare(a.Name, b.Name)
	}
	if a.Known != b.Known {
		if a.Known {
			return -1
		}
		return 1
	}
	c := cmp.Compare(a.Value, b.Value)
	if o.Desc {
		c = -c
	}
	return cmp.Or(c, cmp.Compare(a.Name, b.Name))
}

// Cursor is the position after which the next page of a sorted list
// starts, as an opaque string for links: "<figure>~<name>", "~<name>" when
// the figure is unknown. Names never hold '~'.
func (p position) cursor() string { return p.Cursor() }

// Cursor is the position as a page link carries it.
func (p Position) Cursor() string {
	if !p.Known {
		return "~" + p.Name
	}
	return strconv.FormatInt(p.Value, 10) + "~" + p.Name
}

// ParseCursor reads a Cursor back; a string the console did not make is
// fault.Invalid.
func ParseCursor(s string) (Position, error) { return parseCursor(s) }

func parseCursor(s string) (position, error) {
	v, name, ok := strings.Cut(s, "~")
	if !ok || name == "" {
		return position{}, fault.New(fault.Invalid, "after", "this page link's position is not one the console made; start again from the first page")
	}
	if v == "" {
		return position{Name: name}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return position{}, fault.New(fault.Invalid, "after", "this page link's position is not one the console made; start again from the first page")
	}
	return position{Value: n, Known: true, Name: name}, nil
}

// listingCacheCap bounds the namespaces whose judged table lists are kept;
// an operator sorts a few at a time. Past it the cache restarts.
const listingCacheCap = 64

// listing is one namespace's tables, each judged, in name order, with the
// orders asked for so far (indexes into tables), built once each.
type listing struct {
	key    summaryKey
	at     time.Time
	tables []ListedTable

	mu     sync.Mutex
	orders map[Order][]int32
}

func (l *listing) order(o Order) []int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if idx, ok := l.orders[o]; ok {
		return idx
	}
	idx := make([]int32, len(l.tables))
	for i := range idx {
		idx[i] = int32(i)
	}
	pos := make([]position, len(l.tables))
	for i := range l.tables {
		pos[i] = l.tables[i].position(o.Key)
	}
	slices.SortFunc(idx, func(a, b int32) int { return comparePositions(o, pos[a], pos[b]) })
	l.orders[o] = idx
	return idx
}

// SortedTables is a page of a namespace's tables in order o: the first
// limit after the cursor after ("" = from the top), the cursor of the next
// page ("" on the last) and how many tables match the filter in all.
// Tables not observed yet sort last whatever the direction. The judged
// list is cached per namespace and rebuilt when a table, an observation
// or a threshold changes (while observations stream in, at most every
// summaryMinInterval), and each order is sorted once per build, so a page
// costs a binary search and the page's rows, at any depth.
func (s *Service) SortedTables(ctx context.Context, bucket string, ns []string, o Order, f ListFilter, after string, limit int) (page []ListedTable, next string, total int, err error) {
	var from position
	if after != "" {
		if from, err = parseCursor(after); err != nil {
			return nil, "", 0, err
		}
	}
	if s == nil || s.tables == nil {
		return nil, "", 0, nil
	}
	l, err := s.listing(ctx, bucket, ns)
	if err != nil {
		return nil, "", 0, err
	}
	idx := l.order(o)
	start := 0
	if after != "" {
		start, _ = slices.BinarySearchFunc(idx, from, func(i int32, p position) int {
			if comparePositions(o, l.tables[i].position(o.Key), p) <= 0 {
				return -1 // at or before the cursor: not on this page
			}
			return 1
		})
	}
	page = make([]ListedTable, 0, min(limit, len(idx)))
	if f.Name == "" && !f.Attention {
		end := min(start+limit, len(idx))
		for _, i := range idx[start:end] {
			page = append(page, l.tables[i])
		}
		if end < len(idx) && len(page) > 0 {
			next = page[len(page)-1].position(o.Key).cursor()
		}
		return page, next, len(idx), nil
	}
	for n, i := range idx {
		t := &l.tables[i]
		if !f.keeps(t) {
			continue
		}
		total++
		switch {
		case n < start:
		case len(page) < limit:
			page = append(page, *t)
		case next == "":
			next = page[len(page)-1].position(o.Key).cursor()
		}
	}
	return page, next, total, nil
}

func (f ListFilter) keeps(t *ListedTable) bool {
	if !catalog.NameFilterMatches(t.Name, f.Name) {
		return false
	}
	return !f.Attention || t.Overview.NeedsAttention()
}

// listing is the namespace's tables, judged, cached like the attention list.
func (s *Service) listing(ctx context.Context, bucket string, ns []string) (*listing, error) {
	gen, err := s.tables.TableGeneration(ctx)
	if err != nil {
		return nil, err
	}
	var changes uint64
	if s.obs != nil {
		changes = s.obs.Changes()
	}
	key := summaryKey{gen: gen, changes: changes, th: s.Thresholds()}
	id := bucket + "\x00" + catalog.JoinNamespace(ns)
	now := s.now()
	s.mu.Lock()
	l, ok := s.listings[id]
	s.mu.Unlock()
	if ok && (l.key == key || (l.key.gen == key.gen && l.key.th == key.th && now.Sub(l.at) < summaryMinInterval)) {
		return l, nil
	}
	keys, err := s.tables.TableKeys(ctx, bucket, ns)
	if err != nil {
		return nil, err
	}
	l = &listing{key: key, at: now, tables: make([]ListedTable, len(keys)), orders: map[Order][]int32{}}
	for i, k := range keys {
		l.tables[i] = ListedTable{TableKey: k, Overview: s.table(k.ID, k.Format, k.ModifiedAt, key.th, now)}
	}
	s.mu.Lock()
	if s.listings == nil || len(s.listings) >= listingCacheCap {
		s.listings = map[string]*listing{}
	}
	s.listings[id] = l
	s.mu.Unlock()
	return l, nil
}
