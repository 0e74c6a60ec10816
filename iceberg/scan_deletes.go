package iceberg

import (
	"context"

	"github.com/floe/floe/fault"
)

// Delete files in a plan: which of a snapshot's position and equality
// deletes reach which data file.

// plannedDelete is a delete file with what matching it to data files needs.
type plannedDelete struct {
	file    ContentFile
	content int // 1 position, 2 equality
	seq     int64
	specID  int
	global  bool   // written under an unpartitioned spec: applies everywhere
	partKey string // the partition tuple, for matching
}

// collectDeletes reads the kept delete manifests.
func (s *Tables) collectDeletes(ctx context.Context, in *scanInput, ms []listEntry) ([]*plannedDelete, error) {
	var out []*plannedDelete
	for _, m := range ms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		spec, specKnown := in.specs[m.SpecID]
		err := s.readManifest(m.Path, in.md.Location, func(e *planEntry) error {
			if e.Status == 2 || (e.File.Content != 1 && e.File.Content != 2) {
				return nil
			}
			part, values, present, partOK := partitionOf(spec, specKnown, &e.File)
			if partOK && !partitionMightMatch(in.filter, spec, values, present) {
				return nil // applies only to data files the filter excludes
			}
			if len(out) >= MaxPlanFiles {
				return newError(fault.Invalid, "filter", "the snapshot has more than %d live delete files; compact the table before planning scans of it", MaxPlanFiles)
			}
			out = append(out, &plannedDelete{
				file: in.contentFile(&e.File, m.SpecID, part), content: e.File.Content, seq: entrySeq(e, m),
				specID: m.SpecID, global: len(spec.fields) == 0, partKey: partKey(part),
			})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appliesTo is the spec's rule for a delete file and a data file: position
// deletes at the data file's sequence number or later, equality deletes
// strictly later; both in the same partition unless written unpartitioned,
// and a position delete that names its data file for that file only.
func (d *plannedDelete) appliesTo(dataSeq int64, specID int, key, path string) bool {
	switch d.content {
	case 1:
		if d.seq < dataSeq {
			return false
		}
		if d.file.ReferencedDataFile != nil {
			return *d.file.ReferencedDataFile == path
		}
	case 2:
		if d.seq <= dataSeq {
			return false
		}
	default:
		return false
	}
	return d.global || (d.specID == specID && d.partKey == key)
}
