package s3tables

import (
	"strings"

	"github.com/floe/floe/identity"
)

// tagTarget reads the resourceArn of a tag operation — a table bucket ARN
// or a table ARN — and checks the key's access to its bucket. tableID is ""
// for a bucket.
func (s *Server) tagTarget(req *request, priv identity.Privilege) (bucket, tableID string, err error) {
	arn := req.param("resourceArn")
	if strings.Contains(arn, "/table/") {
		bucket, id, err := s.parseTableARN("resourceArn", arn)
		if err != nil {
			return "", "", err
		}
		if err := s.allow(req, identity.Resource{Bucket: bucket}, see); err != nil {
			return "", "", err
		}
		t, err := s.cfg.Store.GetTableByID(req.ctx, id)
		if err != nil || t.Bucket != bucket {
			return "", "", notFound("no table has the ARN " + arn)
		}
		return bucket, id, s.allow(req, identity.Resource{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name}, priv)
	}
	bucket, err = s.parseBucketARN("resourceArn", arn)
	if err != nil {
		return "", "", err
	}
	return bucket, "", s.allow(req, identity.Resource{Bucket: bucket}, priv)
}

func (s *Server) updateTags(req *request, bucket, tableID string, set map[string]string, remove []string) error {
	if tableID != "" {
		_, err := s.cfg.Store.UpdateTableTags(req.ctx, tableID, set, remove)
		return err
	}
	_, err := s.cfg.Store.UpdateBucketTags(req.ctx, bucket, set, remove)
	return err
}
