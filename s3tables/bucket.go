package s3tables

import (
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
