package warehouse

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// S3Config says how to reach the store of an s3:// warehouse.
type S3Config struct {
	// Endpoint is the store's URL (http://127.0.0.1:8333); empty means AWS.
	Endpoint string
	// Region signs requests; empty takes the AWS chain's, else us-east-1.
	Region string
	// PathStyle addresses buckets as ENDPOINT/bucket/key instead of
	// bucket.ENDPOINT/key, as most self-hosted stores need.
	PathStyle bool
	// AccessKey and SecretKey, when both set, replace the standard AWS
	// credential chain (environment, shared files, instance roles).
	AccessKey, SecretKey, SessionToken string
	// STSRoleARN is the role floe assumes to vend keys scoped to one
	// table (--vend-credentials sts); empty when it does not.
	STSRoleARN string
	// STSEndpoint is the store's STS URL; empty means Endpoint (the
	// S3-compatible stores that have STS serve it on the S3 port), or AWS's.
	STSEndpoint string
	// NoConditionalPut says the store ignores If-None-Match on PUT (and the
	// copy conditions): floe starts on it anyway (--s3-conditional-put
	// absent) and Warehouse.ConditionalWrites answers false, so the
	// catalog is the only commit authority (see ConditionalWrites).
	NoConditionalPut bool
}

const (
	// defaultRegion is what an S3-compatible store gets when neither the
	// flag nor the AWS chain names one: most ignore it, SigV4 needs one.
	defaultRegion = "us-east-1"
	// s3DialTimeout fails a connection to an unreachable store quickly, so
	// a request answers 503 in seconds instead of hanging.
	s3DialTimeout = 5 * time.Second
	// s3ListPage is the most keys one ListObjectsV2 page returns (S3's
	// maximum): a drop lists its prefix in pages this big.
	s3ListPage = 1000
	// s3DeleteBatch is how many keys one DeleteObjects call carries (S3
	// allows up to 1000). Smaller than a list page on purpose: SeaweedFS
	// deletes the keys of one call one after another (0.5–0.8 ms of its CPU
	// each, measured), so a page sent as four calls in flight together lets
	// it use every core; on AWS the extra calls cost a few milliseconds.
	s3DeleteBatch = 250
	// s3DeleteInFlight bounds the DeleteObjects calls of one drop that run
	// at once: enough to keep a multi-core store busy while the listing
	// goes on, without letting one drop flood the store's connections.
	s3DeleteInFlight = 16
	// s3IdleConnsPerHost is the idle connections kept to the store: one per
	// in-flight delete, plus as many again for the reads and writes the
	// catalogs run beside a drop.
	s3IdleConnsPerHost = 2 * s3DeleteInFlight
	// s3OpenPrefetch is what Open reads with its first GET: on a store a
	// request's latency dwarfs moving a MiB, so a small file (manifests,
	// the Parquet files a Browse Data page reads) costs one request, and an
	// open file holds at most this much.
	s3OpenPrefetch = 1 << 20
	// s3TailPrefetch is read at once when a read reaches the end of a large
	// file: a Parquet footer (its length, then itself) in one request.
	s3TailPrefetch = 64 << 10
)

// S3 is the Backend on an S3-compatible object store. Keys are the
// Location's path; there are no directory objects (it never writes one and
// skips any "dir/" marker another tool left), so an empty "directory" does
// not exist.
//
// It uses aws-sdk-go-v2's service/s3 rather than gocloud.dev/blob: the SDK
// is already in the module graph through iceberg-go, and floe needs the
// parts blob abstracts away — If-None-Match on PUT, batch DeleteObjects,
// the endpoint/path-style/credential knobs it also hands to clients.
type S3 struct {
	root     Location
	client   *s3.Client
	cfg      S3Config
	creds    aws.CredentialsProvider // what floe signs with; Vend hands it out under static
	sts      *stsVendor              // nil unless cfg.STSRoleARN is set
	endpoint string                  // for sentences: cfg.Endpoint or "AWS S3"
}

// OpenS3 builds the S3 backend for an s3:// root. It does not contact the
// store; Check does.
func OpenS3(ctx context.Context, root Location, cfg S3Config) (*S3, error) {
	if root.Scheme() != SchemeS3 {
		return nil, errorf(ErrBadLocation, "warehouse %s is not an s3:// location", root)
	}
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(awshttp.NewBuildableClient().WithDialerOptions(func(d *net.Dialer) {
			d.Timeout = s3DialTimeout
		}).WithTransportOptions(func(tr *http.Transport) {
			// Keep a connection per in-flight delete: the SDK's default
			// of 10 idle per host closes and redials the rest each burst.
			tr.MaxIdleConnsPerHost = s3IdleConnsPerHost
		})),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.AccessKey != "" && cfg.SecretKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("warehouse: AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = defaultRegion
	}
	cfg.Region = awsCfg.Region
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
		// The SDK's default flexible checksums (CRC trailers on every
		// PUT) are refused or mis-read by several S3-compatible stores;
		// send and check them only where the API requires one.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "AWS S3"
	}
	b := &S3{root: root, client: client, cfg: cfg, creds: awsCfg.Credentials, endpoint: endpoint}
	if cfg.STSRoleARN != "" {
		b.sts = newSTSVendor(sts.NewFromConfig(awsCfg, func(o *sts.Options) {
			if ep := cmp.Or(cfg.STSEndpoint, cfg.Endpoint); ep != "" {
				o.BaseEndpoint = aws.String(ep)
			}
		}), cfg.STSRoleARN)
	}
	return b, nil
}

// NewS3 opens an s3:// root as a Warehouse.
func NewS3(ctx context.Context, root Location, cfg S3Config) (*Warehouse, *S3, error) {
	b, err := OpenS3(ctx, root, cfg)
	if err != nil {
		return nil, nil, err
	}
	return New(root, b), b, nil
}

// Root is the warehouse's s3:// root.
func (b *S3) Root() Location { return b.root }

// Config is the configuration the backend runs with (Region filled in);
// the catalogs hand the same settings to their clients.
func (b *S3) Config() S3Config { return b.cfg }

// key is the object key of loc, and the key prefix ("k/") of everything
// below it ("" for a whole bucket).
func key(loc Location) (k, below string) {
	k = loc.Path()
	if k == "" {
		return "", ""
	}
	return k, k + "/"
}

// ReadFile reads a whole object.
func (b *S3) ReadFile(ctx context.Context, loc Location) ([]byte, error) {
	k, _ := key(loc)
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(loc.Bucket()), Key: aws.String(k)})
	if err != nil {
		return nil, b.fail("read", loc, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, b.fail("read", loc, err)
	}
	return data, nil
}

// List pages through every object below prefix. Keys floe could not have
// written (empty or "." segments, "dir/" markers) are skipped.
func (b *S3) List(ctx context.Context, prefix Location, fn func(Entry) error) error {
	_, below := key(prefix)
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(prefix.Bucket()),
		Prefix: aws.String(below),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return b.fail("list", prefix, err)
		}
		for _, o := range page.Contents {
			rel := strings.TrimPrefix(aws.ToString(o.Key), below)
			loc, err := prefix.Join(strings.Split(rel, "/")...)
			if err != nil {
				continue
			}
			if err := fn(Entry{Loc: loc, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// CreateExclusive PUTs with If-None-Match: *, which the store refuses when
// the key exists. Check proves at start that the store honours it; on a
// store run with NoConditionalPut it may silently replace the key.
func (b *S3) CreateExclusive(ctx context.Context, loc Location, data []byte) error {
	_, err := b.CreateExclusiveETag(ctx, loc, data)
	return err
}

// CreateExclusiveETag is CreateExclusive answering the new object's ETag.
func (b *S3) CreateExclusiveETag(ctx context.Context, loc Location, data []byte) (string, error) {
	k, _ := key(loc)
	out, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:      aws.String(loc.Bucket()),
		Key:         aws.String(k),
		Body:        bytes.NewReader(data),
		IfNoneMatch: aws.String("*"),
	})
	if err != nil {
		return "", b.fail("create", loc, err)
	}
	return aws.ToString(out.ETag), nil
}

// CopyExclusive copies src to dst inside the store with CopyObject and
// If-None-Match: *, and with x-amz-copy-source-if-match when srcETag is
// given. Both conditions answer 412; a HEAD of dst tells which failed.
func (b *S3) CopyExclusive(ctx context.Context, src, dst Location, srcETag string) (string, error) {
	sk, _ := key(src)
	dk, _ := key(dst)
	in := &s3.CopyObjectInput{
		Bucket:      aws.String(dst.Bucket()),
		Key:         aws.String(dk),
		CopySource:  aws.String(src.Bucket() + "/" + (&url.URL{Path: sk}).EscapedPath()),
		IfNoneMatch: aws.String("*"),
	}
	if srcETag != "" {
		in.CopySourceIfMatch = aws.String(srcETag)
	}
	out, err := b.client.CopyObject(ctx, in)
	if err == nil {
		if out.CopyObjectResult != nil {
			return aws.ToString(out.CopyObjectResult.ETag), nil
		}
		return "", nil
	}
	if !preconditionFailed(err) {
		return "", b.fail("copy", src, err)
	}
	if there, herr := b.Exists(ctx, dst); herr == nil && there {
		return "", errorf(ErrExist, "%s already exists", dst)
	}
	return "", errorf(ErrChanged, "%s is no longer the object its entity tag named; it was replaced or rewritten", src)
}

// ConditionalWrites reports whether the store is taken to honour
// If-None-Match (false when configured with NoConditionalPut).
func (b *S3) ConditionalWrites() bool { return !b.cfg.NoConditionalPut }

// WriteFile PUTs an object, replacing any; S3 PUTs are atomic.
func (b *S3) WriteFile(ctx context.Context, loc Location, data []byte) error {
	k, _ := key(loc)
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(loc.Bucket()),
		Key:    aws.String(k),
		Body:   bytes.NewReader(data),
	})
	if err != nil {
		return b.fail("write", loc, err)
	}
	return nil
}

// Delete removes one object; S3 answers a missing key with success.
func (b *S3) Delete(ctx context.Context, loc Location) error {
	k, _ := key(loc)
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(loc.Bucket()), Key: aws.String(k)})
	if err != nil {
		return b.fail("delete", loc, err)
	}
	return nil
}

// DeletePrefix removes the object at prefix and every object below it, in
// DeleteObjects batches of s3DeleteBatch keys (each listed page split in
// four), with up to s3DeleteInFlight batches in flight while the listing goes on (a key
// listed is never listed again, so deleting behind the paginator is safe).
func (b *S3) DeletePrefix(ctx context.Context, prefix Location) error {
	k, below := key(prefix)
	if k == "" {
		return errorf(ErrOutside, "refusing to delete the whole bucket %s", prefix)
	}
	if err := b.Delete(ctx, prefix); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		slots = make(chan struct{}, s3DeleteInFlight)
	)
	fail := func(err error) { once.Do(func() { first = err; cancel(err) }) }
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket:  aws.String(prefix.Bucket()),
		Prefix:  aws.String(below),
		MaxKeys: aws.Int32(s3ListPage),
	})
	for pages.HasMorePages() && ctx.Err() == nil {
		page, err := pages.NextPage(ctx)
		if err != nil {
			fail(b.fail("list", prefix, err))
			break
		}
		if len(page.Contents) == 0 {
			continue
		}
		for batch := range slices.Chunk(page.Contents, s3DeleteBatch) {
			objs := make([]types.ObjectIdentifier, 0, len(batch))
			for _, o := range batch {
				objs = append(objs, types.ObjectIdentifier{Key: o.Key})
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			wg.Go(func() {
				defer func() { <-slots }()
				if err := b.deleteBatch(ctx, prefix, objs); err != nil {
					fail(err)
				}
			})
		}
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// deleteBatch sends one DeleteObjects call and turns a per-key failure into
// a sentence naming the first key that stayed.
func (b *S3) deleteBatch(ctx context.Context, prefix Location, objs []types.ObjectIdentifier) error {
	out, err := b.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
		Bucket: aws.String(prefix.Bucket()),
		Delete: &types.Delete{Objects: objs, Quiet: aws.Bool(true)},
	})
	if err != nil {
		return b.fail("delete", prefix, err)
	}
	if len(out.Errors) > 0 {
		e := out.Errors[0]
		return fmt.Errorf("warehouse: the S3 store at %s did not delete %d of %d objects under %s; first: s3://%s/%s: %s %s",
			b.endpoint, len(out.Errors), len(objs), prefix, prefix.Bucket(), aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
	}
	return nil
}

// Exists reports whether an object is at loc or anything is below it.
func (b *S3) Exists(ctx context.Context, loc Location) (bool, error) {
	k, below := key(loc)
	if k != "" {
		_, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(loc.Bucket()), Key: aws.String(k)})
		if err == nil {
			return true, nil
		}
		if err := b.fail("stat", loc, err); !errors.Is(err, ErrNotExist) {
			return false, err
		}
	}
	out, err := b.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
		Bucket: aws.String(loc.Bucket()), Prefix: aws.String(below), MaxKeys: aws.Int32(1),
	})
	if err != nil {
		return false, b.fail("list", loc, err)
	}
	return len(out.Contents) > 0, nil
}
