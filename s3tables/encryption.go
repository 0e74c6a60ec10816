package s3tables

import (
	"encoding/json"
	"fmt"

	"github.com/floe/floe/warehouse"
)

// Encryption at rest is the warehouse store's: floe sends no encryption
// headers, and the data files engines and workers write reach the store
// without floe, so the store's default encryption is the only truth there
// is (warehouse.DefaultEncryption asks the store). The API reports it and
// accepts a request for it; it cannot change it.

type encryptionConfiguration struct {
	SSEAlgorithm string `json:"sseAlgorithm"`
	KMSKeyARN    string `json:"kmsKeyArn,omitempty"`
}

// encryptionAnswer is GetTableBucketEncryption's and GetTableEncryption's
// answer, or NotFoundException when the store does not encrypt: the model
// has no "none", and claiming AES256 for plain files would be false.
func (s *Server) encryptionAnswer(req *request, what string) (any, error) {
	e, err := s.cfg.Store.Storage().DefaultEncryption(req.ctx)
	if err != nil {
		return nil, err
	}
	if e.Algorithm == "" {
		return nil, notFound(fmt.Sprintf("%s is not encrypted at rest: the warehouse store (a local directory, or an S3 bucket without default encryption) "+
			"writes it as it is given; configure default encryption on the store's bucket (S3 PutBucketEncryption) and this answers what it does", what))
	}
	return struct {
		Encryption encryptionConfiguration `json:"encryptionConfiguration"`
	}{encryptionConfiguration{SSEAlgorithm: e.Algorithm, KMSKeyARN: e.KMSKeyID}}, nil
}

// checkEncryption accepts a requested encryption only when it is what the
// store already does to everything: AES256 on a store that encrypts with
// its own keys. KMS keys are not floe's to manage.
func (s *Server) checkEncryption(req *request, field string, want *encryptionConfiguration) error {
	if want == nil {
		return nil
	}
	switch want.SSEAlgorithm {
	case warehouse.SSEKMS:
		return badRequest(field, "floe does not manage KMS keys, so it cannot encrypt with aws:kms; leave "+field+" out, or ask for AES256 when the warehouse store encrypts with its own keys")
	case warehouse.SSEAES256:
	default:
		return badRequest(field, field+".sseAlgorithm must be AES256 or aws:kms")
	}
	e, err := s.cfg.Store.Storage().DefaultEncryption(req.ctx)
	if err != nil {
		return err
	}
	if e.Algorithm != warehouse.SSEAES256 {
		now := "does not encrypt at rest"
		if e.Algorithm != "" {
			now = "encrypts with " + e.Algorithm
		}
		return badRequest(field, fmt.Sprintf("the warehouse store %s, and floe cannot make it encrypt with AES256; configure the store's bucket with default encryption AES256 (S3 PutBucketEncryption), or leave %s out", now, field))
	}
	return nil
}

// readEncryption reads an encryptionConfiguration member (absent or null
// is nil).
func readEncryption(field string, raw json.RawMessage) (*encryptionConfiguration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c encryptionConfiguration
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, badRequest(field, field+" must be {\"sseAlgorithm\": \"AES256\"}")
	}
	return &c, nil
}
