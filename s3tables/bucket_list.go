package s3tables

import (
	"errors"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// listTableBuckets answers ListTableBuckets.
func (s *Server) listTableBuckets(req *request) (any, error) {
	limit, err := req.intParam("maxBuckets", minPage, maxPage, maxPage)
	if err != nil {
		return nil, err
	}
	if t := req.query.Get("type"); t != "" && t != "customer" && t != "aws" {
		return nil, badRequest("type", "type must be customer or aws")
	}
	after, err := decodeToken(req.query.Get("continuationToken"))
	if err != nil {
		return nil, err
	}
	prefix := req.query.Get("prefix")
	if after == "" {
		after = beforePrefix(prefix)
	}
	out := struct {
		TableBuckets      []bucketSummary `json:"tableBuckets"`
		ContinuationToken *string         `json:"continuationToken,omitempty"`
	}{TableBuckets: []bucketSummary{}}
	if req.query.Get("type") == "aws" {
		return out, nil // floe has no AWS-managed buckets
	}
	if all, names := req.rights.Children(identity.Resource{}); !all {
		// Only the buckets the caller's grants lie in, looked up one by
		// one; the token names the last one shown.
		for _, name := range names {
			if name <= after || !strings.HasPrefix(name, prefix) {
				continue
			}
			if len(out.TableBuckets) == limit {
				out.ContinuationToken = encodeToken(out.TableBuckets[len(out.TableBuckets)-1].Name)
				break
			}
			b, err := s.cfg.Store.GetBucket(req.ctx, name)
			if errors.Is(err, fault.NotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out.TableBuckets = append(out.TableBuckets, s.bucketSummary(b))
		}
		return out, nil
	}
	items, next, err := s.cfg.Store.ListBuckets(req.ctx, catalog.ListOptions{After: after, Limit: limit})
	if err != nil {
		return nil, err
	}
	for _, b := range items {
		if !strings.HasPrefix(b.Name, prefix) {
			if b.Name > prefix {
				next = "" // sorted: nothing further can match
				break
			}
			continue
		}
		out.TableBuckets = append(out.TableBuckets, s.bucketSummary(b))
	}
	out.ContinuationToken = encodeToken(next)
	return out, nil
}
