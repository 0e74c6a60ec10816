package iceberg

import (
	"context"
	"errors"
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// Repair is what RepairTable did: the sentences of each fix, and the new
// metadata file when it wrote one (empty when the table needed nothing).
type Repair struct {
	Fixed            []string
	MetadataLocation string
}

// RepairTable rewrites a table's current metadata without what readers
// refuse and an older floe stored anyway (see repairRefs), as a new
// metadata version swapped in like a commit; a table that needs nothing is
// left alone. It is the way back for a table every iceberg-go client and
// floe's Iceberg worker stopped reading; a commit through the REST catalog
// repairs the same way on its way.
func (s *Tables) RepairTable(ctx context.Context, ref catalog.TableRef) (Repair, error) {
	t, err := s.Table(ctx, ref)
	if err != nil {
		return Repair{}, err
	}
	base, err := s.readMetadata(ctx, t.MetadataLocation)
	if err != nil {
		return Repair{}, fmt.Errorf("reading current metadata of %s: %w", ref.Name, err)
	}
	next := base.md.clone()
	fixed := repairRefs(next)
	if len(fixed) == 0 {
		return Repair{}, nil
	}
	version, ok := metadataVersion(t.MetadataLocation)
	if !ok {
		version = len(base.md.MetadataLog)
	}
	next.LastUpdatedMs = max(s.now().UnixMilli(), base.md.LastUpdatedMs)
	logPrevious(next, t.MetadataLocation, base.md.LastUpdatedMs)
	res, err := s.writeMetadata(next, version+1)
	if err != nil {
		return Repair{}, err
	}
	if _, err := s.store.CommitTable(ctx, t.ID, t.VersionToken, res.MetadataLocation, next.Properties); err != nil {
		s.files.Remove(res.MetadataLocation) // ours alone: never referenced
		if errors.Is(err, fault.Conflict) {
			return Repair{}, commitFailed("table %s was changed by a commit during the repair; run it again", ref.Name)
		}
		return Repair{}, fromCatalog(err, "table")
	}
	s.cache.put(res.MetadataLocation, &cachedMetadata{res.Metadata, next})
	return Repair{Fixed: fixed, MetadataLocation: res.MetadataLocation}, nil
}
