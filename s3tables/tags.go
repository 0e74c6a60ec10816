package s3tables

import "strings"

// tagTarget reads the resourceArn of a tag operation: a bucket ARN names a
// bucket (whose tags floe keeps); a table ARN is checked and reported as
// having no tags (floe keeps none on tables).
func (s *Server) tagTarget(req *request, a access) (bucket string, isTable bool, err error) {
	arn := req.param("resourceArn")
	if strings.Contains(arn, "/table/") {
		bucket, id, err := s.parseTableARN("resourceArn", arn)
		if err != nil {
			return "", true, err
		}
		if err := s.allow(req, bucket, a); err != nil {
			return "", true, err
		}
		if t, err := s.cfg.Store.GetTableByID(req.ctx, id); err != nil || t.Bucket != bucket {
			return "", true, notFound("no table has the ARN " + arn)
		}
		return bucket, true, nil
	}
	bucket, err = s.parseBucketARN("resourceArn", arn)
	if err != nil {
		return "", false, err
	}
	return bucket, false, s.allow(req, bucket, a)
}

// listTags answers ListTagsForResource: a bucket's tags; tables have none.
func (s *Server) listTags(req *request) (any, error) {
	bucket, isTable, err := s.tagTarget(req, read)
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	if !isTable {
		b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
		if err != nil {
			return nil, err
		}
		for k, v := range b.Tags {
			tags[k] = v
		}
	}
	return struct {
		Tags map[string]string `json:"tags"`
	}{tags}, nil
}

const tableTagsRefused = "floe keeps tags on table buckets only; tag the table's bucket instead"

func (s *Server) tagResource(req *request) (any, error) {
	bucket, isTable, err := s.tagTarget(req, write)
	if err != nil {
		return nil, err
	}
	if isTable {
		return nil, badRequest("resourceArn", tableTagsRefused)
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
	_, err = s.cfg.Store.UpdateBucketTags(req.ctx, bucket, in.Tags, nil)
	return nil, err
}

func (s *Server) untagResource(req *request) (any, error) {
	bucket, isTable, err := s.tagTarget(req, write)
	if err != nil {
		return nil, err
	}
	if isTable {
		return nil, badRequest("resourceArn", tableTagsRefused)
	}
	keys := req.query["tagKeys"]
	if len(keys) == 0 {
		return nil, badRequest("tagKeys", "tagKeys is required: the keys to remove")
	}
	_, err = s.cfg.Store.UpdateBucketTags(req.ctx, bucket, nil, keys)
	return nil, err
}
