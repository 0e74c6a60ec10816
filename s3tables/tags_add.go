package s3tables

import "github.com/floe/floe/identity"

// tagResource answers TagResource: sets tags on a bucket or a table.
func (s *Server) tagResource(req *request) (any, error) {
	bucket, tableID, err := s.tagTarget(req, identity.Manage)
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
