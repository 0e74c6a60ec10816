package warehouse

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Encryption is what a store does to every object written into the
// warehouse, by whoever writes it (floe, a Lance worker, an engine with
// vended keys): its default encryption at rest. floe sends no encryption
// headers itself, so the store's default is the whole truth.
type Encryption struct {
	// Algorithm is "AES256" (SSE-S3: the store's own keys), "aws:kms"
	// (SSE-KMS) or "" (the store does not encrypt by default).
	Algorithm string
	// KMSKeyID is the KMS key of "aws:kms", when the store names one.
	KMSKeyID string
}

// The algorithms, as S3 and S3 Tables spell them.
const (
	SSEAES256 = "AES256"
	SSEKMS    = "aws:kms"
)

// encryptionReporter is a backend that can say how it encrypts at rest.
type encryptionReporter interface {
	DefaultEncryption(ctx context.Context) (Encryption, error)
}

// DefaultEncryption is the store's default encryption at rest. The local
// disk reports none: floe writes plain files, and whatever the filesystem
// beneath does (LUKS, an encrypted volume) is not floe's to know.
func (w *Warehouse) DefaultEncryption(ctx context.Context) (Encryption, error) {
	if r, ok := w.backend.(encryptionReporter); ok {
		return r.DefaultEncryption(ctx)
	}
	return Encryption{}, nil
}

// DefaultEncryption asks the S3 store for the warehouse bucket's default
// encryption (GetBucketEncryption): AWS S3 answers SSE-S3 for every bucket
// since 2023; a self-hosted store answers what it was configured with, or
// that it has no configuration (no default encryption).
func (b *S3) DefaultEncryption(ctx context.Context) (Encryption, error) {
	out, err := b.client.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: aws.String(b.root.Bucket())})
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) && api.ErrorCode() == "ServerSideEncryptionConfigurationNotFoundError" {
			return Encryption{}, nil
		}
		return Encryption{}, b.fail("read the default encryption of", b.root, err)
	}
	if out.ServerSideEncryptionConfiguration == nil {
		return Encryption{}, nil
	}
	for _, rule := range out.ServerSideEncryptionConfiguration.Rules {
		if d := rule.ApplyServerSideEncryptionByDefault; d != nil && d.SSEAlgorithm != "" {
			e := Encryption{Algorithm: string(d.SSEAlgorithm), KMSKeyID: aws.ToString(d.KMSMasterKeyID)}
			if e.Algorithm == "aws:kms:dsse" {
				e.Algorithm = SSEKMS // dual-layer KMS is still KMS to S3 Tables
			}
			return e, nil
		}
	}
	return Encryption{}, nil
}
