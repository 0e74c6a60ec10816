package s3tables

import "strings"

// tagTarget reads the resourceArn of a tag operation — a table bucket ARN
// or a table ARN — and checks the key's access to its bucket. tableID is ""
// for a bucket.
func (s *Server) tagTarget(req *request, a access) (bucket, tableID string, err error) {
	arn := req.param("resourceArn")
	if strings.Contains(arn, "/table/") {
		bucket, id, err := s.parseTableARN("resourceArn", arn)
		if err != nil {
			return "", "", err
		}
		if err := s.allow(req, bucket, a); err != nil {
			return "", "", err
		}
		if t, err := s.cfg.Store.GetTableByID(req.ctx, id); err != nil || t.Bucket != bucket {
			return "", "", notFound("no table has the ARN " + arn)
		}
		return bucket, id, nil
	}
	bucket, err = s.parseBucketARN("resourceArn", arn)
	if err != nil {
		return "", "", err
	}
	return bucket, "", s.allow(req, bucket, a)
}

func (s *Server) updateTags(req *request, bucket, tableID string, set map[string]string, remove []string) error {
	if tableID != "" {
		_, err := s.cfg.Store.UpdateTableTags(req.ctx, tableID, set, remove)
		return err
	}
	_, err := s.cfg.Store.UpdateBucketTags(req.ctx, bucket, set, remove)
	return err
}
