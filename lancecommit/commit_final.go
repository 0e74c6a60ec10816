package lancecommit

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
)

// The last step of a commit: each staged manifest written to its final
// name, exclusively, while the catalog holds the version's reservation.

// writeFinalsBounded is writeFinals, on a store that ignores conditional
// writes bounded to end well before the reservations could be settled as
// stale (staleAfter after reservedAt). There the store cannot refuse a late
// write, so the database's reservation must still be this commit's when the
// final manifest lands: a commit that stalls past the bound fails (its
// numbers are freed) instead of replacing the manifest of a later commit
// that took the freed number. The margin (half of staleAfter) covers clock
// skew between replicas and a store that applies a PUT after answering late.
func (s *Service) writeFinalsBounded(ctx context.Context, wh *warehouse.Warehouse, plan []staged, reserved []catalog.LanceVersion, reservedAt time.Time) ([]int, []catalog.LanceVersion, error) {
	if wh.ConditionalWrites() {
		return s.writeFinals(ctx, wh, plan, reserved)
	}
	bctx, cancel := context.WithDeadline(ctx, reservedAt.Add(staleAfter/2))
	defer cancel()
	done, adopted, err := s.writeFinals(bctx, wh, plan, reserved)
	if err != nil && bctx.Err() != nil && ctx.Err() == nil {
		err = &fault.Error{Kind: fault.Unavailable, Field: "storage",
			Message: "the store took too long to write the final manifest (more than " + (staleAfter / 2).String() + " after the version was reserved); the version was not committed, try again"}
	}
	return done, adopted, err
}

// writeFinals writes each copied manifest to its final name, exclusively.
// On a store that ignores conditional writes the exclusivity comes from the
// catalog (the reservation) and from a look at the final name first, which
// catches a version some writer put there behind floe's back unless it
// lands between the look and the write.
// done lists the plans it wrote; adopted the versions whose final name was
// taken by a different manifest (a writer that bypassed floe).
func (s *Service) writeFinals(ctx context.Context, wh *warehouse.Warehouse, plan []staged, reserved []catalog.LanceVersion) (done []int, adopted []catalog.LanceVersion, err error) {
	for i, p := range plan {
		if !p.copy {
			continue
		}
		var etag string
		var err error
		if !wh.ConditionalWrites() {
			if there, xerr := wh.Exists(ctx, p.final); xerr != nil {
				return done, adopted, xerr
			} else if there {
				err = fs.ErrExist
			}
		}
		switch {
		case err != nil:
		case p.inPlace:
			etag, err = wh.CopyExclusive(ctx, p.staging, p.final, p.c.ETag)
		default:
			etag, err = wh.CreateExclusiveETag(ctx, p.final, p.data)
		}
		switch {
		case err == nil:
			reserved[i].ETag = etag
			done = append(done, i)
		case errors.Is(err, fs.ErrNotExist):
			return done, adopted, catalog.Invalid("manifest_path", "no manifest at "+quote(p.c.Manifest)+"; write the manifest first, then create the version")
		case errors.Is(err, warehouse.ErrChanged):
			return done, adopted, &fault.Error{Kind: fault.Conflict, Field: "manifest_path",
				Message: "the manifest at " + quote(p.c.Manifest) + " is no longer the one the client wrote (its e_tag changed); write it again and retry"}
		case errors.Is(err, fs.ErrExist):
			there, rerr := readManifest(ctx, wh, p.final)
			if rerr != nil {
				return done, adopted, rerr
			}
			mine := p.data
			if p.inPlace {
				if mine, rerr = readManifest(ctx, wh, p.staging); rerr != nil {
					return done, adopted, rerr
				}
			}
			if bytes.Equal(there, mine) { // our own earlier attempt
				continue
			}
			v := reserved[i]
			v.ManifestSize, v.ETag, v.KeyID, v.Principal = int64(len(there)), "", "", ""
			adopted = append(adopted, v)
		default:
			return done, adopted, err
		}
	}
	return done, adopted, nil
}

func adoptedRecords(reserved, adopted []catalog.LanceVersion) []catalog.LanceVersion {
	var out []catalog.LanceVersion
	for _, a := range adopted {
		for _, r := range reserved {
			if r.TableID == a.TableID && r.Version == a.Version {
				out = append(out, a)
			}
		}
	}
	return out
}

func removeAdopted(reserved, adopted []catalog.LanceVersion) []catalog.LanceVersion {
	var out []catalog.LanceVersion
	for _, r := range reserved {
		keep := true
		for _, a := range adopted {
			if r.TableID == a.TableID && r.Version == a.Version {
				keep = false
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}
