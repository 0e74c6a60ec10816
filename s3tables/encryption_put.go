package s3tables

import (
	"encoding/json"

	"github.com/floe/floe/identity"
)

// putBucketEncryption accepts the encryption the store already applies
// (nothing changes) and refuses any other.
func (s *Server) putBucketEncryption(req *request) (any, error) {
	name, err := s.bucketParam(req, identity.Manage)
	if err != nil {
		return nil, err
	}
	var in struct {
		Encryption json.RawMessage `json:"encryptionConfiguration"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	want, err := readEncryption("encryptionConfiguration", in.Encryption)
	if err != nil {
		return nil, err
	}
	if want == nil {
		return nil, badRequest("encryptionConfiguration", "encryptionConfiguration is required: {\"sseAlgorithm\": \"AES256\"}")
	}
	if _, err := s.cfg.Store.GetBucket(req.ctx, name); err != nil {
		return nil, err
	}
	return nil, s.checkEncryption(req, "encryptionConfiguration", want)
}
