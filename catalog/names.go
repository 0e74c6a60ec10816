package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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

// ValidateNamespaceLevel checks one namespace level (see NameRule).
func ValidateNamespaceLevel(level string) error {
	return validateLevelName("namespace", "namespace level", level, true)
}

// ValidateTableName checks a table (or view) name (see NameRule).
func ValidateTableName(name string) error {
	return validateLevelName("name", "table name", name, false)
}

// NameRule says in one sentence which namespace and table names floe
// takes, for the messages of every surface that refuses one.
const NameRule = "Namespace levels and table names are 1-255 bytes of printable text, case kept " +
	"(letters of any script, digits, spaces inside, punctuation) except / and $; a namespace level also " +
	"has no . (floe joins levels with it); . and .. are not names (buckets are 3-63 of a-z, 0-9 and -)."

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

// validateLevelName is the one rule for namespace levels and table names,
// as wide as Lance and Iceberg allow while every surface can still carry
// the name unambiguously: case is kept (MyTable and mytable are two
// tables, as both formats' catalogs compare names exactly); any printable
// character is taken, spaces inside included, except
//   - / , which separates the parts of paths and URLs everywhere,
//   - $ , the Lance Namespace identifier's default delimiter (LanceDB sends
//     a $ inside a name exactly as it sends the delimiter, %24),
//   - . in a namespace level, because floe names a multi-level namespace
//     by its levels joined with . (console URLs, the catalog's keys, the
//     warehouse's directory).
//
// Control and other non-printing characters (which render as nothing or
// reorder text), leading or trailing spaces, and the names . and .. are
// refused. The warehouse directory a name gets is DirName's, so names
// outside a-z, 0-9, _ and - never meet on a case-insensitive store.
func validateLevelName(field, what, s string, level bool) error {
	if len(s) < 1 || len(s) > maxNameLevel {
		return Invalid(field, fmt.Sprintf("%s must be 1–%d bytes", what, maxNameLevel))
	}
	if !utf8.ValidString(s) {
		return Invalid(field, what+" must be UTF-8 text")
	}
	if s == "." || s == ".." {
		return Invalid(field, what+" must not be . or ..")
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return Invalid(field, what+" must not start or end with a space")
	}
	for _, r := range s {
		switch {
		case r == '/' || r == '$':
			return Invalid(field, fmt.Sprintf("%s must not contain %q", what, r))
		case r == '.' && level:
			return Invalid(field, what+" must not contain . (floe joins namespace levels with it: give a.b as two levels)")
		case !unicode.IsPrint(r):
			return Invalid(field, fmt.Sprintf("%s must not contain the non-printing character %U", what, r))
		}
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

// Directory names. A table's default location and a namespace's directory
// are built from names, and the warehouse may sit on a case-insensitive
// store (a macOS or Windows disk, some S3-compatible stores' listings), so
// a name does not become a directory as it is: two names differing only in
// case would share one there. DirName maps every name to a directory name
// of lower-case a-z, 0-9, _ and - only, one to one:
//   - a name already of that form, starting and ending with a letter or a
//     digit (every name floe accepted before names were widened), is its
//     own directory name, so existing layouts do not move;
//   - any other name gets "_" (which no name of the first kind starts
//     with) followed by its bytes, a-z, 0-9 and - as they are, an upper-case
//     letter as _ and the letter in lower case, and every other byte as _
//     and its value in three decimal digits ("MyTable" → "__my_table",
//     "q 1" → "_q_0321", "_x" → "__095x");
//   - a directory name of either kind longer than maxDirName (most
//     filesystems take 255 bytes, and a Lance table adds ".lance": a
//     longer one could never be made on local disk) is cut and ends with a
//     hash of the whole of it, and then starts with "-", which neither of
//     the forms above starts with.
// The result never holds ".", so levels joined with "." stay apart, and
// never depends on case-folding, so it cannot collide on any store.

// maxDirName bounds one directory name built from a name: 255 bytes (the
// usual filesystem limit) less ".lance".
const maxDirName = 249

// dirHashHex is how many hex digits of the SHA-256 of the name end a cut
// directory name: 128 bits, far past any collision a catalog can meet.
const dirHashHex = 32

// DirName is the warehouse directory name of one namespace level or table
// name (Lance tables add ".lance").
func DirName(name string) string {
	if isPlainName(name) {
		return capDirName(name)
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	b.WriteByte('_')
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isLowerAlnum(c) || c == '-':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte('_')
			b.WriteByte(c - 'A' + 'a')
		default:
			fmt.Fprintf(&b, "_%03d", c)
		}
	}
	return capDirName(b.String())
}

// NamespaceDirName is the directory of a namespace: its levels' DirNames
// joined by ".", cut as DirName cuts.
func NamespaceDirName(levels []string) string {
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = DirName(l) // plain levels join exactly as floe always joined them
	}
	return capDirName(strings.Join(parts, "."))
}

// isPlainName: a-z, 0-9, _ and -, starting and ending with a letter or a
// digit (the names floe took before names were widened).
func isPlainName(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// capDirName cuts an encoded directory name longer than maxDirName: "-",
// its first bytes, "-" and a hash of all of it.
func capDirName(enc string) string {
	if len(enc) <= maxDirName {
		return enc
	}
	sum := sha256.Sum256([]byte(enc))
	keep := maxDirName - 2 - dirHashHex
	return "-" + enc[:keep] + "-" + hex.EncodeToString(sum[:])[:dirHashHex]
}

// counted is "1 table" or "3 tables": a count with its noun in the right
// number, for sentences people read.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
