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
		tableRule      string // when it differs for a table name ("-" = valid)
	}{
		{"simple", "sales", "", ""},
		{"underscore and hyphen inside", "eu_west-1", "", ""},
		{"single char", "a", "", ""},
		{"max length", strings.Repeat("a", 255), "", ""},
		{"mixed case", "MyTable", "", ""},
		{"space inside", "My Table", "", ""},
		{"plus, percent, hash, question mark", "a+b%c#d?e", "", ""},
		{"leading underscore", "_a", "", ""},
		{"trailing hyphen", "a-", "", ""},
		{"unicode", "ñame – 表", "", ""},
		{"max length in bytes", strings.Repeat("é", 127), "", ""},
		{"empty", "", "must be 1–255 bytes", ""},
		{"too long", strings.Repeat("a", 256), "must be 1–255 bytes", ""},
		{"too long in bytes", strings.Repeat("é", 128), "must be 1–255 bytes", ""},
		{"dollar", "a$b", `must not contain '$'`, ""},
		{"slash", "a/b", `must not contain '/'`, ""},
		{"dot", "a.b", "must not contain .", "-"},
		{"dot", ".", "must not be . or ..", ""},
		{"dot dot", "..", "must not be . or ..", ""},
		{"leading space", " a", "must not start or end with a space", ""},
		{"trailing space", "a ", "must not start or end with a space", ""},
		{"NUL", "a\x00b", "non-printing character U+0000", ""},
		{"tab", "a\tb", "non-printing character U+0009", ""},
		{"unit separator", "a\x1fb", "non-printing character U+001F", ""},
		{"right-to-left override", "a\u202eb", "non-printing character U+202E", ""},
		{"no-break space", "a\u00a0b", "non-printing character U+00A0", ""},
		{"not UTF-8", "a\xffb", "must be UTF-8", ""},
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
			rule := tc.rule
			switch tc.tableRule {
			case "-":
				rule = ""
			case "":
			default:
				rule = tc.tableRule
			}
			err := ValidateTableName(tc.in)
			checkRule(t, err, rule, "name")
			if rule != "" && !strings.Contains(err.Error(), "table name") {
				t.Errorf("message %q does not say it is about a table name", err)
			}
		})
	}
}

// TestDirName: plain names keep their directory (existing layouts do not
// move); every other name gets one of lower-case a-z, 0-9, _ and - that
// no other name gets, even compared without case, and no "."; long ones
// are cut within the filesystem's limit.
func TestDirName(t *testing.T) {
	for in, want := range map[string]string{
		"sales": "sales", "eu_west-1": "eu_west-1", "a": "a", "t1": "t1",
		"MyTable": "__my_table", "mytable": "mytable", "MYTABLE": "__m_y_t_a_b_l_e",
		"My Table": "__my_032_table", "_x": "__095x", "x_": "_x_095", "-x": "_-x",
		"a.b": "_a_046b", "é": "__195_169", "q 1": "_q_0321",
	} {
		if got := DirName(in); got != want {
			t.Errorf("DirName(%q) = %q, want %q", in, got, want)
		}
	}
	names := []string{"MyTable", "mytable", "MYTABLE", "myTable", "My Table", "My_Table", "my_table", "my-table", "My-Table",
		"_my_table", "__my_table", "my_095table", "a.b", "a_046b", "A", "a", "_a", "é", "É", "x y", "x_032y", "x  y",
		strings.Repeat("Ab", 127), strings.Repeat("aB", 127), strings.Repeat("ab", 127) + "C", strings.Repeat("ab", 127) + "c"}
	seen := map[string]string{}
	for _, n := range names {
		if err := ValidateTableName(n); err != nil {
			t.Fatalf("%q: %v", n, err)
		}
		d := DirName(n)
		if len(d) > maxDirName {
			t.Errorf("DirName(%q) is %d bytes, past %d", n, len(d), maxDirName)
		}
		for _, c := range []byte(d) {
			if !isLowerAlnum(c) && c != '_' && c != '-' {
				t.Errorf("DirName(%q) = %q holds %q", n, d, c)
			}
		}
		folded := strings.ToLower(d)
		if other, ok := seen[folded]; ok {
			t.Errorf("%q and %q share the directory %q on a case-insensitive store", n, other, d)
		}
		seen[folded] = n
	}
}

// TestNamespaceDirName: plain levels join with "." as before; others are
// encoded level by level, so ["a", "b"] and a level "a.b"-like name never
// meet.
func TestNamespaceDirName(t *testing.T) {
	for _, tc := range []struct {
		levels []string
		want   string
	}{
		{[]string{"sales"}, "sales"},
		{[]string{"a", "b"}, "a.b"},
		{[]string{"Sales", "EU"}, "__sales.__e_u"},
		{[]string{"a", "B"}, "a.__b"},
	} {
		if got := NamespaceDirName(tc.levels); got != tc.want {
			t.Errorf("NamespaceDirName(%q) = %q, want %q", tc.levels, got, tc.want)
		}
	}
	long := NamespaceDirName([]string{strings.Repeat("A", 200), "b"})
	if len(long) > maxDirName || long[0] != '-' {
		t.Errorf("a long namespace's directory = %q (%d bytes)", long, len(long))
	}
	plain := NamespaceDirName([]string{strings.Repeat("a", 120), strings.Repeat("b", 120)})
	if plain != strings.Repeat("a", 120)+"."+strings.Repeat("b", 120) {
		t.Errorf("plain levels moved: %q", plain)
	}
	if d := DirName(strings.Repeat("a", 255)); len(d) > maxDirName || d[0] != '-' {
		t.Errorf("a 255-byte plain name's directory = %q", d)
	}
}

// FuzzDirName: any valid name gets a directory name within bounds, of the
// allowed bytes, that differs from the directory name of the name with
// one letter's case changed.
func FuzzDirName(f *testing.F) {
	for _, s := range []string{"MyTable", "sales", "a b", "é", strings.Repeat("Zz", 130)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateTableName(name) != nil {
			return
		}
		d := DirName(name)
		if len(d) == 0 || len(d) > maxDirName {
			t.Fatalf("DirName(%q) = %q", name, d)
		}
		for _, c := range []byte(d) {
			if !isLowerAlnum(c) && c != '_' && c != '-' {
				t.Fatalf("DirName(%q) = %q holds %q", name, d, c)
			}
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			var flipped byte
			switch {
			case c >= 'a' && c <= 'z':
				flipped = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				flipped = c - 'A' + 'a'
			default:
				continue
			}
			other := name[:i] + string(flipped) + name[i+1:]
			if strings.EqualFold(DirName(other), d) {
				t.Fatalf("%q and %q share directory %q without case", name, other, d)
			}
			break
		}
	})
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
