package s3tables

import "github.com/floe/floe/identity"

// untagResource answers UntagResource: removes tags by key.
func (s *Server) untagResource(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, identity.Manage)
	if err != nil {
		return nil, err
	}
	keys := req.query["tagKeys"]
	if len(keys) == 0 {
		return nil, badRequest("tagKeys", "tagKeys is required: the keys to remove")
	}
	return nil, s.updateTags(req, bucket, tableID, nil, keys)
}
