package catalog

import (
	"fmt"
	"strings"
)

// Reserved bucket-name prefixes and suffixes, as AWS reserves them for S3
// Tables, so a bucket name here is also valid there.
var (
	reservedBucketPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-", "aws"}
	reservedBucketSuffixes = []string{"-s3alias", "--ol-s3", "--x-s3", "--table-s3"}
)

// Name length limits from the data model.
const (
	minBucketName = 3
	maxBucketName = 63
	maxNameLevel  = 255 // namespace levels and table names
	maxUserName   = 64
	minPassword   = 8
	maxPassword   = 72 // bcrypt ignores bytes past 72; refuse rather than truncate silently
	maxKeyName    = 128
)

func isLowerAlnum(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }

// ValidateBucketName returns an fault.Invalid error naming the rule that failed.
func ValidateBucketName(name string) error { return validateBucket("name", name) }

func validateBucket(field, name string) error {
	if len(name) < minBucketName || len(name) > maxBucketName {
		return Invalid(field, fmt.Sprintf("bucket name must be %d–%d characters", minBucketName, maxBucketName))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLowerAlnum(c) && c != '-' {
			return Invalid(field, "bucket name may contain only lower-case letters, digits and hyphens")
		}
	}
	if !isLowerAlnum(name[0]) || !isLowerAlnum(name[len(name)-1]) {
		return Invalid(field, "bucket name must start and end with a lower-case letter or digit")
	}
	for _, p := range reservedBucketPrefixes {
		if strings.HasPrefix(name, p) {
			return Invalid(field, fmt.Sprintf("bucket name must not start with the reserved prefix %q", p))
		}
	}
	for _, sfx := range reservedBucketSuffixes {
		if strings.HasSuffix(name, sfx) {
			return Invalid(field, fmt.Sprintf("bucket name must not end with the reserved suffix %q", sfx))
		}
	}
	return nil
}

// ValidateNamespaceLevel checks one namespace level.
func ValidateNamespaceLevel(level string) error {
	return validateLevelName("namespace", "namespace level", level)
}

// ValidateTableName checks a table name.
func ValidateTableName(name string) error { return validateLevelName("name", "table name", name) }

// validateNamespace checks every level of a namespace path.
func validateNamespace(levels []string) error {
	if len(levels) == 0 {
		return Invalid("namespace", "namespace must have at least one level")
	}
	for _, l := range levels {
		if err := ValidateNamespaceLevel(l); err != nil {
			return err
		}
	}
	return nil
}

func validateLevelName(field, what, s string) error {
	if len(s) < 1 || len(s) > maxNameLevel {
		return Invalid(field, fmt.Sprintf("%s must be 1–%d characters", what, maxNameLevel))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' && c != '_' {
			return Invalid(field, what+" may contain only lower-case letters, digits, underscores and hyphens")
		}
	}
	if !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return Invalid(field, what+" must start and end with a lower-case letter or digit")
	}
	return nil
}

// validateRef checks every part of a table reference.
func validateRef(ref TableRef) error {
	if err := validateBucket("bucket", ref.Bucket); err != nil {
		return err
	}
	if err := validateNamespace(ref.Namespace); err != nil {
		return err
	}
	return ValidateTableName(ref.Name)
}

// validateUserName checks a console user name.
func validateUserName(name string) error {
	if len(name) < 1 || len(name) > maxUserName {
		return Invalid("username", fmt.Sprintf("user name must be 1–%d characters", maxUserName))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLowerAlnum(c) && c != '_' && c != '.' && c != '-' {
			return Invalid("username", "user name may contain only lower-case letters, digits, dots, underscores and hyphens")
		}
	}
	return nil
}

func validatePassword(pw string) error {
	if len(pw) < minPassword {
		return Invalid("password", fmt.Sprintf("password must be at least %d characters", minPassword))
	}
	if len(pw) > maxPassword {
		return Invalid("password", fmt.Sprintf("password must be at most %d bytes", maxPassword))
	}
	return nil
}

// counted is "1 table" or "3 tables": a count with its noun in the right
// number, for sentences people read.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
