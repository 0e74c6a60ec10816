package s3tables

import (
	"encoding/json"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// createTableBucket answers CreateTableBucket.
func (s *Server) createTableBucket(req *request) (any, error) {
	var in struct {
		Name         string            `json:"name"`
		Tags         map[string]string `json:"tags"`
		Format       string            `json:"format"` // floe's extension; absent = ICEBERG, as in AWS
		Encryption   json.RawMessage   `json:"encryptionConfiguration"`
		StorageClass *struct {
			StorageClass string `json:"storageClass"`
		} `json:"storageClassConfiguration"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, badRequest("name", "name is required: 3–63 characters of a-z, 0-9 and -, starting and ending with a letter or digit")
	}
	if in.StorageClass != nil && in.StorageClass.StorageClass != "" && in.StorageClass.StorageClass != "STANDARD" {
		return nil, badRequest("storageClassConfiguration", "floe stores every table in one storage class; leave storageClassConfiguration out or set it to STANDARD")
	}
	f, err := catalog.ParseFormat(in.Format)
	if err != nil {
		return nil, badRequest("format", "format must be ICEBERG, LANCE or absent (an Iceberg bucket, as AWS makes)")
	}
	if f == catalog.FormatUnset {
		f = catalog.FormatIceberg // S3 Tables buckets hold Iceberg tables
	}
	if err := s.checkServed(f, "a table bucket"); err != nil {
		return nil, err
	}
	// Creating a place needs manage on it: a manager of everything, or a
	// key scoped to that bucket before it exists.
	if err := s.allow(req, identity.Resource{Bucket: in.Name}, identity.Manage); err != nil {
		return nil, err
	}
	enc, err := readEncryption("encryptionConfiguration", in.Encryption)
	if err != nil {
		return nil, err
	}
	if err := s.checkEncryption(req, "encryptionConfiguration", enc); err != nil {
		return nil, err
	}
	b, err := s.cfg.Store.CreateBucket(req.ctx, catalog.CreateBucketInput{Name: in.Name, Format: f, Owner: req.key.Name, Tags: in.Tags})
	if err != nil {
		return nil, err
	}
	return struct {
		ARN string `json:"arn"`
	}{s.bucketARN(b.Name)}, nil
}
