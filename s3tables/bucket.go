package s3tables

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
)

type bucketSummary struct {
	ARN            string `json:"arn"`
	Name           string `json:"name"`
	OwnerAccountID string `json:"ownerAccountId"`
	CreatedAt      string `json:"createdAt"`
	TableBucketID  string `json:"tableBucketId"`
	Type           string `json:"type"`
	Format         string `json:"format,omitempty"` // floe's extension: LANCE, ICEBERG, or absent for a bucket made before formats (it takes both)
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (s *Server) bucketSummary(b catalog.Bucket) bucketSummary {
	return bucketSummary{ARN: s.bucketARN(b.Name), Name: b.Name, OwnerAccountID: s.cfg.Account, CreatedAt: timestamp(b.CreatedAt),
		TableBucketID: bucketID(b), Type: "customer", Format: string(b.Format)}
}

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
	if err := s.allow(req, in.Name, write); err != nil {
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

func (s *Server) getTableBucket(req *request) (any, error) {
	name, err := s.bucketParam(req, read)
	if err != nil {
		return nil, err
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, name)
	if err != nil {
		return nil, err
	}
	return s.bucketSummary(b), nil
}

func (s *Server) deleteTableBucket(req *request) (any, error) {
	name, err := s.bucketParam(req, write)
	if err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.DeleteBucket(req.ctx, name, false)
}

func (s *Server) listTableBuckets(req *request) (any, error) {
	limit, err := req.intParam("maxBuckets", minPage, maxPage, maxPage)
	if err != nil {
		return nil, err
	}
	if t := req.query.Get("type"); t != "" && t != "customer" && t != "aws" {
		return nil, badRequest("type", "type must be customer or aws")
	}
	after, err := decodeToken(req.query.Get("continuationToken"))
	if err != nil {
		return nil, err
	}
	prefix := req.query.Get("prefix")
	if after == "" {
		after = beforePrefix(prefix)
	}
	out := struct {
		TableBuckets      []bucketSummary `json:"tableBuckets"`
		ContinuationToken *string         `json:"continuationToken,omitempty"`
	}{TableBuckets: []bucketSummary{}}
	if req.query.Get("type") == "aws" {
		return out, nil // floe has no AWS-managed buckets
	}
	if req.key.Bucket != "" { // a bucket-scoped key sees its one bucket
		b, err := s.cfg.Store.GetBucket(req.ctx, req.key.Bucket)
		if err == nil && strings.HasPrefix(b.Name, prefix) && b.Name > after {
			out.TableBuckets = append(out.TableBuckets, s.bucketSummary(b))
		}
		return out, nil
	}
	items, next, err := s.cfg.Store.ListBuckets(req.ctx, catalog.ListOptions{After: after, Limit: limit})
	if err != nil {
		return nil, err
	}
	for _, b := range items {
		if !strings.HasPrefix(b.Name, prefix) {
			if b.Name > prefix {
				next = "" // sorted: nothing further can match
				break
			}
			continue
		}
		out.TableBuckets = append(out.TableBuckets, s.bucketSummary(b))
	}
	out.ContinuationToken = encodeToken(next)
	return out, nil
}
