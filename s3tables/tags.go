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

// listTags answers ListTagsForResource: a bucket's or a table's tags.
func (s *Server) listTags(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, read)
	if err != nil {
		return nil, err
	}
	var tags map[string]string
	if tableID != "" {
		if tags, err = s.cfg.Store.TableTags(req.ctx, tableID); err != nil {
			return nil, err
		}
	} else {
		b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
		if err != nil {
			return nil, err
		}
		tags = b.Tags
	}
	if tags == nil {
		tags = map[string]string{}
	}
	return struct {
		Tags map[string]string `json:"tags"`
	}{tags}, nil
}

// tagResource answers TagResource: sets tags on a bucket or a table.
func (s *Server) tagResource(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, write)
	if err != nil {
		return nil, err
	}
	var in struct {
		Tags map[string]string `json:"tags"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, badRequest("tags", "tags is required: at least one key and value")
	}
	return nil, s.updateTags(req, bucket, tableID, in.Tags, nil)
}

// untagResource answers UntagResource: removes tags by key.
func (s *Server) untagResource(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, write)
	if err != nil {
		return nil, err
	}
	keys := req.query["tagKeys"]
	if len(keys) == 0 {
		return nil, badRequest("tagKeys", "tagKeys is required: the keys to remove")
	}
	return nil, s.updateTags(req, bucket, tableID, nil, keys)
}

func (s *Server) updateTags(req *request, bucket, tableID string, set map[string]string, remove []string) error {
	if tableID != "" {
		_, err := s.cfg.Store.UpdateTableTags(req.ctx, tableID, set, remove)
		return err
	}
	_, err := s.cfg.Store.UpdateBucketTags(req.ctx, bucket, set, remove)
	return err
}
