package s3tables

import "github.com/floe/floe/identity"

// listTags answers ListTagsForResource: a bucket's or a table's tags.
func (s *Server) listTags(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, identity.Read)
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
