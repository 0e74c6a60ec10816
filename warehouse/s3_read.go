package warehouse

// Reading objects: Open with its head and tail prefetch, ranged reads.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Open returns a reader of an object, pinned to its ETag so a file
// replaced while it is read fails instead of mixing two versions. The
// first request is a GET of the object's first s3OpenPrefetch bytes, not a
// HEAD: it tells the size at the same cost and holds the whole of a small
// file (an Iceberg manifest, a Browse Data page's Parquet file), which is
// then read with no other request. Beyond it each ReadAt is one ranged GET,
// except that the first read in the last s3TailPrefetch bytes (a Parquet
// footer) fetches all of them once.
func (b *S3) Open(ctx context.Context, loc Location) (File, error) {
	k, _ := key(loc)
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(loc.Bucket()), Key: aws.String(k),
		Range: aws.String(fmt.Sprintf("bytes=0-%d", s3OpenPrefetch-1)),
	})
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) && api.ErrorCode() == "InvalidRange" { // an empty object has no byte 0
			return b.openByHead(ctx, loc, k)
		}
		return nil, b.fail("open", loc, err)
	}
	defer out.Body.Close()
	size, ok := rangeTotal(aws.ToString(out.ContentRange))
	if !ok { // the store ignored Range and sends the whole object
		size = aws.ToInt64(out.ContentLength)
	}
	head := make([]byte, min(size, s3OpenPrefetch))
	if _, err := io.ReadFull(out.Body, head); err != nil {
		return nil, b.fail("open", loc, err)
	}
	return &s3File{b: b, ctx: ctx, loc: loc, key: k, size: size, etag: aws.ToString(out.ETag), head: head}, nil
}

func (b *S3) openByHead(ctx context.Context, loc Location, k string) (File, error) {
	head, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(loc.Bucket()), Key: aws.String(k)})
	if err != nil {
		return nil, b.fail("open", loc, err)
	}
	return &s3File{b: b, ctx: ctx, loc: loc, key: k, size: aws.ToInt64(head.ContentLength), etag: aws.ToString(head.ETag)}, nil
}

// rangeTotal reads the total size from a Content-Range "bytes 0-99/1234".
func rangeTotal(cr string) (int64, bool) {
	i := strings.LastIndexByte(cr, '/')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(cr[i+1:], 10, 64)
	return n, err == nil && n >= 0
}

type s3File struct {
	b    *S3
	ctx  context.Context
	loc  Location
	key  string
	size int64
	etag string
	head []byte // the object's first bytes, read by Open

	tailOnce sync.Once
	tail     []byte // the last s3TailPrefetch bytes once a read reached them
	tailErr  error
}

func (f *s3File) Size() int64  { return f.size }
func (f *s3File) Close() error { return nil }

// ReadAt reads len(p) bytes at off from the prefetched head or tail, else
// with one ranged GET; safe for concurrent use, as io.ReaderAt requires.
func (f *s3File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errorf(ErrBadLocation, "negative offset %d reading %s", off, f.loc)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := min(int64(len(p)), f.size-off)
	var eof error
	if want < int64(len(p)) {
		eof = io.EOF
	}
	if off+want <= int64(len(f.head)) {
		return copy(p, f.head[off:off+want]), eof
	}
	if tailStart := f.size - s3TailPrefetch; f.size > int64(len(f.head)) && off >= max(tailStart, int64(len(f.head))) {
		f.tailOnce.Do(func() {
			from := max(tailStart, int64(len(f.head)))
			f.tail = make([]byte, f.size-from)
			_, f.tailErr = f.get(f.tail, from)
		})
		if f.tailErr != nil {
			return 0, f.tailErr
		}
		from := f.size - int64(len(f.tail))
		return copy(p, f.tail[off-from:off-from+want]), eof
	}
	n, err := f.get(p[:want], off)
	if err != nil {
		return n, err
	}
	return n, eof
}

// get fills p from off with one ranged GET.
func (f *s3File) get(p []byte, off int64) (int, error) {
	in := &s3.GetObjectInput{
		Bucket: aws.String(f.loc.Bucket()),
		Key:    aws.String(f.key),
		Range:  aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)),
	}
	if f.etag != "" {
		in.IfMatch = aws.String(f.etag)
	}
	out, err := f.b.client.GetObject(f.ctx, in)
	if err != nil {
		return 0, f.b.fail("read", f.loc, err)
	}
	defer out.Body.Close()
	n, err := io.ReadFull(out.Body, p)
	if err != nil {
		return n, f.b.fail("read", f.loc, err)
	}
	return n, nil
}
