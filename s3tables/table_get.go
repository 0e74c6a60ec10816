package s3tables

import (
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// getTable answers GET /get-table, which names the table either by tableArn
// or by tableBucketARN + namespace + name.
func (s *Server) getTable(req *request) (any, error) {
	q := req.query
	var t catalog.Table
	if arn := q.Get("tableArn"); arn != "" {
		bucket, id, err := s.parseTableARN("tableArn", arn)
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, identity.Resource{Bucket: bucket}, see); err != nil {
			return nil, err
		}
		t, err = s.cfg.Store.GetTableByID(req.ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Bucket != bucket {
			return nil, notFound(fmt.Sprintf("no table has the id %q in bucket %q", id, bucket))
		}
		if err := s.allow(req, tableResource(catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name}), identity.Read); err != nil {
			return nil, err
		}
	} else {
		bucket, err := s.parseBucketARN("tableBucketARN", q.Get("tableBucketARN"))
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, identity.Resource{Bucket: bucket}, see); err != nil {
			return nil, err
		}
		ref, err := tableRef(bucket, q.Get("namespace"), q.Get("name"))
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, tableResource(ref), identity.Read); err != nil {
			return nil, err
		}
		if t, err = s.cfg.Store.GetTable(req.ctx, ref); err != nil {
			return nil, err
		}
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, t.Bucket)
	if err != nil {
		return nil, err
	}
	return s.tableInfo(b, t), nil
}
