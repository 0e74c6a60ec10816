package warehouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// More kinds of failure, met on object stores.
var (
	// ErrUnavailable: the store cannot be reached or is failing; callers
	// answer 503 and try again later.
	ErrUnavailable = errors.New("storage is unavailable")
	// ErrPermission: the store refused floe's credentials.
	ErrPermission = fs.ErrPermission
	// ErrNoConditionalPut: the store ignores If-None-Match on PUT, so an
	// exclusive create cannot be made safe there.
	ErrNoConditionalPut = errors.New("store does not honour conditional PUT")
	// ErrChanged: a copy's source is no longer the object the caller named
	// by its entity tag.
	ErrChanged = errors.New("object changed")
)

// NoConditionalPutRisk is what floe says, in its log and on the console,
// about a store run with S3Config.NoConditionalPut.
const NoConditionalPutRisk = "the S3 store does not honour If-None-Match on PUT (--s3-conditional-put absent): " +
	"floe's database is the commit authority of managed Lance buckets (new Lance buckets are managed and none can be turned unmanaged), " +
	"but Lance tables in unmanaged buckets, and any writer that commits straight to the store, can lose concurrent commits without an error"

// fail turns an SDK error into an *Error whose Kind a caller can map and
// whose sentence names the store, the location and what went wrong.
func (b *S3) fail(op string, loc Location, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	status := 0
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	switch {
	case status == 0:
		// No HTTP answer at all: refused, reset, timed out, DNS.
		return errorf(ErrUnavailable, "the S3 store at %s cannot be reached (%v); check that it is running and the endpoint is right", b.endpoint, rootCause(err))
	case code == "NoSuchBucket":
		return errorf(ErrNotExist, "the S3 store at %s has no bucket %q; create it or fix --warehouse", b.endpoint, loc.Bucket())
	case code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound:
		return errorf(ErrNotExist, "%s does not exist", loc)
	case op == "create" && (code == "PreconditionFailed" || status == http.StatusPreconditionFailed ||
		code == "ConditionalRequestConflict"):
		// 409 ConditionalRequestConflict is AWS's answer while another
		// conditional PUT of the same key is in flight: that writer wins.
		return errorf(ErrExist, "%s already exists", loc)
	case code == "PreconditionFailed" || status == http.StatusPreconditionFailed:
		return errorf(ErrUnavailable, "%s changed while it was being read; read it again", loc)
	case status == http.StatusForbidden || code == "AccessDenied" || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch":
		return errorf(ErrPermission, "the S3 store at %s refused to %s %s (%s); check floe's credentials and their rights on the bucket", b.endpoint, op, loc, orStatus(code, status))
	case status >= 500 || status == http.StatusTooManyRequests:
		return errorf(ErrUnavailable, "the S3 store at %s failed to %s %s (%s); try again", b.endpoint, op, loc, orStatus(code, status))
	}
	return fmt.Errorf("warehouse: %s %s on the S3 store at %s: %w", op, loc, b.endpoint, err)
}

// preconditionFailed reports an S3 412: a condition of the request did
// not hold.
func preconditionFailed(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "PreconditionFailed" {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusPreconditionFailed
}

func orStatus(code string, status int) string {
	if code != "" {
		return code
	}
	return fmt.Sprintf("HTTP %d", status)
}

// rootCause is the innermost error, which for a failed dial is the
// sentence an operator recognises ("connection refused").
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// Ping lists at most one key of the root: the cheap question "can floe
// reach and read its warehouse now?" that readiness asks.
func (b *S3) Ping(ctx context.Context) error {
	_, below := key(b.root)
	_, err := b.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
		Bucket: aws.String(b.root.Bucket()), Prefix: aws.String(below), MaxKeys: aws.Int32(1),
	})
	if err != nil {
		return b.fail("list", b.root, err)
	}
	return nil
}

// Check is the start-up test of the store: it lists the root, then writes
// a probe object twice with If-None-Match: * to prove the store refuses
// the second (Iceberg metadata and Lance commits rely on it), and removes
// the probe.
func (b *S3) Check(ctx context.Context) error {
	if err := b.Ping(ctx); err != nil {
		return err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	probe, err := b.root.Join(".floe-probe-" + hex.EncodeToString(nonce[:]))
	if err != nil {
		return err
	}
	defer b.Delete(context.WithoutCancel(ctx), probe)
	if err := b.CreateExclusive(ctx, probe, []byte("1")); err != nil {
		return err
	}
	err = b.CreateExclusive(ctx, probe, []byte("2"))
	switch {
	case errors.Is(err, ErrExist):
		return nil
	case err == nil:
		return errorf(ErrNoConditionalPut, "the S3 store at %s ignores If-None-Match: * on PUT, so two writers could replace each other's table metadata; "+
			"use a store that supports conditional writes (AWS S3, SeaweedFS, MinIO)", b.endpoint)
	default:
		return err
	}
}
