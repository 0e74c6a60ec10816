package lancecommit

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// Managed reports whether the table's commits go through floe: its bucket
// has managed versioning on.
func (s *Service) Managed(ctx context.Context, t catalog.Table) (bool, error) {
	return s.store.ManagedVersioning(ctx, t.Bucket)
}

// Query pages a version listing: After is the last version of the previous
// page (0 for the first), in the listing's order.
type Query struct {
	After      uint64
	Descending bool
	Limit      int // 1..catalog.MaxPageSize; 0 means the whole first page
}

// List lists a table's versions: from the catalog's record when the table
// is managed and the catalog has one, else from its _versions/ listing.
// next is the page token for the following page (0 on the last page).
func (s *Service) List(ctx context.Context, t catalog.Table, managed bool, q Query) (vs []Version, next uint64, err error) {
	limit := q.Limit
	if limit <= 0 || limit > catalog.MaxPageSize {
		limit = catalog.MaxPageSize
	}
	if managed {
		recs, err := s.store.LanceVersions(ctx, t.ID, catalog.LanceVersionQuery{After: q.After, Descending: q.Descending, Limit: limit + 1})
		if err != nil {
			return nil, 0, err
		}
		if len(recs) > 0 || q.After > 0 {
			out := make([]Version, 0, len(recs))
			for _, r := range recs {
				out = append(out, fromRecord(r))
			}
			return page(out, limit)
		}
		if recorded, err := s.store.HasLanceVersions(ctx, t.ID); err != nil || recorded {
			return []Version{}, 0, err // only reserved ones so far: nothing committed yet
		}
	}
	all, err := s.listStorage(ctx, t)
	if err != nil {
		return nil, 0, err
	}
	if q.Descending {
		slices.Reverse(all)
	}
	out := []Version{}
	for _, v := range all {
		if q.After > 0 && ((!q.Descending && v.Version <= q.After) || (q.Descending && v.Version >= q.After)) {
			continue
		}
		out = append(out, v)
	}
	return page(out, limit)
}

func page(vs []Version, limit int) ([]Version, uint64, error) {
	if len(vs) > limit {
		return vs[:limit], vs[limit-1].Version, nil
	}
	return vs, 0, nil
}

// Describe returns one version, or with v 0 the latest; found is false
// when the table has no such version.
func (s *Service) Describe(ctx context.Context, t catalog.Table, managed bool, v uint64) (Version, bool, error) {
	if managed {
		rec, ok, err := s.store.LanceVersionAt(ctx, t.ID, v)
		if err != nil || ok {
			return fromRecord(rec), ok, err
		}
		if recorded, err := s.store.HasLanceVersions(ctx, t.ID); err != nil || recorded {
			return Version{}, false, err
		}
	}
	all, err := s.listStorage(ctx, t)
	if err != nil {
		return Version{}, false, err
	}
	for i := len(all) - 1; i >= 0; i-- {
		if v == 0 || all[i].Version == v {
			return all[i], true, nil
		}
	}
	return Version{}, false, nil
}

// Delete forgets the records of the versions in ranges (not the manifests:
// the spec's BatchDeleteTableVersions deletes records, and the client's
// cleanup deletes the files).
func (s *Service) Delete(ctx context.Context, t catalog.Table, ranges []catalog.LanceVersionRange) (int64, error) {
	return s.store.DeleteLanceVersions(ctx, t.ID, ranges)
}

// listStorage lists the manifests in <location>/_versions through the
// warehouse, oldest first. A dataset not yet written has none.
func (s *Service) listStorage(ctx context.Context, t catalog.Table) ([]Version, error) {
	loc, err := s.store.Storage().Parse(t.Location)
	if err != nil {
		return nil, err
	}
	return s.listVersions(ctx, loc)
}

// listVersions lists the manifests in <root>/_versions (a table's, or a
// branch's tree/<name>), oldest first.
func (s *Service) listVersions(ctx context.Context, root warehouse.Location) ([]Version, error) {
	wh := s.store.Storage()
	dir, err := root.Join("_versions")
	if err != nil {
		return nil, err
	}
	var out []Version
	err = wh.List(ctx, dir, func(en warehouse.Entry) error {
		rel, _ := en.Loc.Rel(dir)
		if strings.Contains(rel, "/") {
			return nil // manifests sit directly in _versions/
		}
		if v, ok := catalog.ParseManifestName(rel); ok {
			out = append(out, Version{Version: v, Manifest: en.Loc, Size: en.Size})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Version) int { return cmp.Compare(a.Version, b.Version) })
	return out, nil
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func quote(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return strconv.Quote(s)
}
