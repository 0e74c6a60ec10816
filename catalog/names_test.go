package catalog

import (
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

func TestValidateBucketName(t *testing.T) {
	cases := []struct {
		name, in, rule string // rule "" = valid
	}{
		{"simple", "lake", ""},
		{"digits and hyphens", "a1-b2-c3", ""},
		{"three chars", "abc", ""},
		{"sixty-three chars", strings.Repeat("a", 63), ""},
		{"starts with digit", "1lake", ""},
		{"too short", "ab", "must be 3–63 characters"},
		{"empty", "", "must be 3–63 characters"},
		{"too long", strings.Repeat("a", 64), "must be 3–63 characters"},
		{"upper case", "Lake", "only lower-case letters, digits and hyphens"},
		{"dollar", "la$ke", "only lower-case letters, digits and hyphens"},
		{"slash", "la/ke", "only lower-case letters, digits and hyphens"},
		{"dot dot", "a..b", "only lower-case letters, digits and hyphens"},
		{"NUL", "lak\x00e", "only lower-case letters, digits and hyphens"},
		{"underscore", "la_ke", "only lower-case letters, digits and hyphens"},
		{"unicode", "läke", "only lower-case letters, digits and hyphens"},
		{"space", "la ke", "only lower-case letters, digits and hyphens"},
		{"leading hyphen", "-lake", "start and end with"},
		{"trailing hyphen", "lake-", "start and end with"},
		{"prefix xn--", "xn--lake", `reserved prefix "xn--"`},
		{"prefix sthree-", "sthree-lake", `reserved prefix "sthree-"`},
		{"prefix amzn-s3-demo-", "amzn-s3-demo-lake", `reserved prefix "amzn-s3-demo-"`},
		{"prefix aws", "awslake", `reserved prefix "aws"`},
		{"suffix -s3alias", "lake-s3alias", `reserved suffix "-s3alias"`},
		{"suffix --ol-s3", "lake--ol-s3", `reserved suffix "--ol-s3"`},
		{"suffix --x-s3", "lake--x-s3", `reserved suffix "--x-s3"`},
		{"suffix --table-s3", "lake--table-s3", `reserved suffix "--table-s3"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkRule(t, ValidateBucketName(tc.in), tc.rule, "name")
		})
	}
}

func TestValidateNamespaceLevelAndTableName(t *testing.T) {
	cases := []struct {
		name, in, rule string
	}{
		{"simple", "sales", ""},
		{"underscore and hyphen inside", "eu_west-1", ""},
		{"single char", "a", ""},
		{"max length", strings.Repeat("a", 255), ""},
		{"empty", "", "must be 1–255 characters"},
		{"too long", strings.Repeat("a", 256), "must be 1–255 characters"},
		{"upper case", "Sales", "only lower-case letters, digits, underscores and hyphens"},
		{"dollar", "a$b", "only lower-case letters, digits, underscores and hyphens"},
		{"slash", "a/b", "only lower-case letters, digits, underscores and hyphens"},
		{"dot", "a.b", "only lower-case letters, digits, underscores and hyphens"},
		{"dot dot", "..", "only lower-case letters, digits, underscores and hyphens"},
		{"NUL", "a\x00b", "only lower-case letters, digits, underscores and hyphens"},
		{"unicode", "ñame", "only lower-case letters, digits, underscores and hyphens"},
		{"leading underscore", "_a", "start and end with"},
		{"trailing hyphen", "a-", "start and end with"},
	}
	for _, tc := range cases {
		t.Run("namespace/"+tc.name, func(t *testing.T) {
			err := ValidateNamespaceLevel(tc.in)
			checkRule(t, err, tc.rule, "namespace")
			if tc.rule != "" && !strings.Contains(err.Error(), "namespace level") {
				t.Errorf("message %q does not say it is about a namespace level", err)
			}
		})
		t.Run("table/"+tc.name, func(t *testing.T) {
			err := ValidateTableName(tc.in)
			checkRule(t, err, tc.rule, "name")
			if tc.rule != "" && !strings.Contains(err.Error(), "table name") {
				t.Errorf("message %q does not say it is about a table name", err)
			}
		})
	}
}

func TestValidateUserNameAndPassword(t *testing.T) {
	cases := []struct {
		name, user, pw, rule string
	}{
		{"valid", "ops.team_1-a", "long enough", ""},
		{"upper case user", "Admin", "long enough", "user name may contain only"},
		{"empty user", "", "long enough", "user name must be 1–64"},
		{"long user", strings.Repeat("u", 65), "long enough", "user name must be 1–64"},
		{"short password", "ops", "short", "at least 8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := validateUserName(tc.user)
			if err == nil {
				err = validatePassword(tc.pw)
			}
			checkRule(t, err, tc.rule, "")
		})
	}
}

// checkRule wants err nil when rule is "", else an fault.Invalid whose message
// names the rule (and whose Field is field, when given).
func checkRule(t *testing.T, err error, rule, field string) {
	t.Helper()
	if rule == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	ce := wantKind(t, err, fault.Invalid)
	if !strings.Contains(ce.Message, rule) {
		t.Errorf("message %q does not name the rule %q", ce.Message, rule)
	}
	if field != "" && ce.Field != field {
		t.Errorf("field %q, want %q", ce.Field, field)
	}
}
