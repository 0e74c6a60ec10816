package icebergrest

import (
	"strings"
)

// arnKind says which ARN a client named its bucket by.
type arnKind struct {
	// floe: floe's own partition (arn:floe:s3tables:…, the ARN the console
	// and the catalog show), whose region and account are the catalog's:
	// openBucket compares it with the bucket's ARN once the bucket is read.
	floe bool
}

// bucketName turns a warehouse or {prefix} into a bucket name: a bare name
// as it is, or a table bucket's ARN — arn:aws:s3tables:<region>:<account>:
// bucket/<name>, what AWS's S3 Tables Iceberg endpoint takes as warehouse
// and floe's S3 Tables API hands out (region and account must be this
// server's), or floe's own arn:floe:s3tables:…:bucket/<name>. Only the
// ARN's shape is checked here; the name is checked by openBucket, after
// authorization.
func (s *Server) bucketName(prefix string) (string, arnKind, error) {
	if !strings.HasPrefix(prefix, "arn:") {
		return prefix, arnKind{}, nil
	}
	// arn:<partition>:s3tables:<region>:<account>:bucket/<name>
	parts := strings.SplitN(prefix, ":", 6)
	if len(parts) != 6 || parts[2] != "s3tables" {
		return "", arnKind{}, badRequest("%q is not a table bucket ARN; name the bucket, or its ARN %s", prefix, s.arnForm())
	}
	name, ok := strings.CutPrefix(parts[5], "bucket/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", arnKind{}, badRequest("%q is not a table bucket ARN (a table's ARN, or another resource's?); a bucket's ARN is %s", prefix, s.arnForm())
	}
	switch parts[1] {
	case "aws":
		if (s.region != "" && parts[3] != s.region) || (s.account != "" && parts[4] != s.account) {
			return "", arnKind{}, s.foreignARN(prefix)
		}
		return name, arnKind{}, nil
	case "floe":
		return name, arnKind{floe: true}, nil
	}
	return "", arnKind{}, s.foreignARN(prefix)
}

// arnForm is the shape of this server's bucket ARNs, for error sentences.
func (s *Server) arnForm() string {
	region, account := s.region, s.account
	if region == "" {
		region = "<region>"
	}
	if account == "" {
		account = "<account>"
	}
	return "arn:aws:s3tables:" + region + ":" + account + ":bucket/<name>"
}

func (s *Server) foreignARN(arn string) error {
	return badRequest("%q is not a table bucket ARN of this server: its buckets are %s (region and account from --s3tables-region and --s3tables-account), or the arn:floe:… ARN the console shows", arn, s.arnForm())
}
