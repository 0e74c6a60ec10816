package catalog

import (
	"context"
	"fmt"

	"github.com/floe/floe/persist"
)

// Tag bounds, as S3 Tables has them, so a tag AWS would refuse is refused here.
const (
	maxTagKey   = 128
	maxTagValue = 256
)

// UpdateBucketTags sets and removes tags on a bucket in one transaction and
// returns the bucket with its new tags.
func (s *Store) UpdateBucketTags(ctx context.Context, name string, set map[string]string, remove []string) (Bucket, error) {
	if err := ValidateBucketName(name); err != nil {
		return Bucket{}, err
	}
	for k, v := range set {
		if k == "" || len(k) > maxTagKey || len(v) > maxTagValue {
			return Bucket{}, Invalid("tags", fmt.Sprintf("a tag key is 1–%d characters and its value at most %d", maxTagKey, maxTagValue))
		}
	}
	var b Bucket
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if b, err = s.getBucket(ctx, tx, name); err != nil {
			return err
		}
		if b.Tags == nil {
			b.Tags = map[string]string{}
		}
		for _, k := range remove {
			delete(b.Tags, k)
		}
		for k, v := range set {
			b.Tags[k] = v
		}
		if len(b.Tags) > maxBucketTags {
			return Invalid("tags", fmt.Sprintf("a bucket may have at most %d tags", maxBucketTags))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET tags = ? WHERE name = ?`, encodeMap(b.Tags), name); err != nil {
			return dbErr("update bucket tags", err)
		}
		return nil
	})
	if err != nil {
		return Bucket{}, err
	}
	return b, nil
}
