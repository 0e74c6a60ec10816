package s3tables

import (
	"fmt"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/google/uuid"
)

// arnPrefix is "arn:aws:s3tables:<region>:<account>:" for this server: the
// AWS partition, so SDKs, the CLI and Terraform parse floe's ARNs as they
// parse AWS's.
func (s *Server) arnPrefix() string {
	return "arn:aws:s3tables:" + s.cfg.Region + ":" + s.cfg.Account + ":"
}

func (s *Server) bucketARN(name string) string { return s.arnPrefix() + "bucket/" + name }

func (s *Server) tableARN(t catalog.Table) string { return s.bucketARN(t.Bucket) + "/table/" + t.ID }

// parseBucketARN accepts a table bucket ARN of this server, or a bare bucket
// name (what floe's own tools print), and returns the bucket name.
func (s *Server) parseBucketARN(field, arn string) (string, error) {
	if arn == "" {
		return "", badRequest(field, field+" is required: the table bucket's ARN, "+s.bucketARN("<name>"))
	}
	name := arn
	if strings.HasPrefix(arn, "arn:") {
		rest, ok := strings.CutPrefix(arn, s.arnPrefix()+"bucket/")
		if !ok {
			return "", s.foreignARN(field, arn)
		}
		name = rest
	}
	if err := catalog.ValidateBucketName(name); err != nil {
		return "", badRequest(field, fmt.Sprintf("%s %q does not name a table bucket: %s", field, arn, err))
	}
	return name, nil
}

// parseTableARN splits "<bucket ARN>/table/<id>" into bucket and table id.
func (s *Server) parseTableARN(field, arn string) (bucket, id string, err error) {
	rest, ok := strings.CutPrefix(arn, s.arnPrefix()+"bucket/")
	if !ok {
		return "", "", s.foreignARN(field, arn)
	}
	bucket, id, ok = strings.Cut(rest, "/table/")
	if !ok || catalog.ValidateBucketName(bucket) != nil {
		return "", "", badRequest(field, fmt.Sprintf("%s %q is not a table ARN; it has the form %s", field, arn, s.bucketARN("<bucket>")+"/table/<table id>"))
	}
	if _, perr := uuid.Parse(id); perr != nil {
		return "", "", notFound(fmt.Sprintf("no table has the id %q in bucket %q", id, bucket))
	}
	return bucket, id, nil
}

func (s *Server) foreignARN(field, arn string) error {
	return badRequest(field, fmt.Sprintf("%s %q is not an S3 Tables ARN of this server; ARNs here start %s (region and account come from --s3tables-region and --s3tables-account)",
		field, arn, s.arnPrefix()))
}

// idNamespace seeds the stable ids derived for buckets and namespaces, which
// the catalog keys by name: a name plus its creation time, so a bucket
// dropped and re-created under the same name gets a new id.
var idNamespace = uuid.MustParse("5d0f3c1e-6a0b-4c59-9a59-0f10e5a0b1a7")

func derivedID(parts ...string) string {
	return uuid.NewSHA1(idNamespace, []byte(strings.Join(parts, "\x00"))).String()
}

func bucketID(b catalog.Bucket) string {
	return derivedID("bucket", b.Name, b.CreatedAt.UTC().Format("2006-01-02T15:04:05.999999999"))
}

// namespaceID is derived from the bucket's id and the namespace's name, so a
// table listing needs no extra read per row.
func namespaceID(bucketID, ns string) string { return derivedID("namespace", bucketID, ns) }
