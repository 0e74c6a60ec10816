package s3tables

import "strings"

// listTags answers ListTagsForResource: a bucket's tags (set when it was
// created); tables carry none.
func (s *Server) listTags(req *request) (any, error) {
	arn := req.params["resourceArn"]
	tags := map[string]string{}
	if strings.Contains(arn, "/table/") {
		bucket, id, err := s.parseTableARN("resourceArn", arn)
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, bucket, read); err != nil {
			return nil, err
		}
		if t, err := s.cfg.Store.GetTableByID(req.ctx, id); err != nil || t.Bucket != bucket {
			return nil, notFound("no table has the ARN " + arn)
		}
	} else {
		bucket, err := s.parseBucketARN("resourceArn", arn)
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, bucket, read); err != nil {
			return nil, err
		}
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
