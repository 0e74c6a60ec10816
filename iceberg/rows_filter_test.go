package iceberg

import (
	"strings"
	"testing"
)

func row(vals map[string]rowValue) func(Filter) func(int) rowValue {
	return func(f Filter) func(int) rowValue {
		return func(k int) rowValue {
			v, ok := vals[f.Columns()[k]]
			if !ok {
				return rowValue{null: true}
			}
			return v
		}
	}
}

// The filter grammar: comparisons, IS [NOT] NULL, [NOT] IN, AND binding
// tighter than OR, NOT and parentheses, SQL's null rule, quoted names and
// doubled quotes; and the refusals, each with a sentence.
func TestParseFilter(t *testing.T) {
	r := row(map[string]rowValue{
		"id":       {num: 42, isNum: true},
		"region":   {text: "eu"},
		"ok":       {b: true, isBool: true},
		"odd name": {text: "it's"},
	})
	cases := []struct {
		expr string
		want bool
	}{
		{"id = 42", true},
		{"id <> 42", false},
		{"id >= 42 AND id < 43", true},
		{"id > 50 OR region = 'eu'", true},
		{"id > 50 OR region = 'eu' AND ok = false", false}, // AND first
		{"(id > 50 OR region = 'eu') AND ok = TRUE", true},
		{"NOT id = 1", true},
		{"not (region != 'eu')", true},
		{"missing IS NULL", true},
		{"id IS NOT NULL", true},
		{"missing = 1", false}, // a null compares false
		{"NOT missing = 1", true},
		{"region IN ('us', 'eu')", true},
		{"id NOT IN (1, 2, 3.5)", true},
		{`"odd name" = 'it''s'`, true},
		{"id = -4.2e1", false},
		{"id = 4.2e1", true},
		{"region > 'a'", true},
	}
	for _, c := range cases {
		f, err := ParseFilter(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		got, err := f.matches(r(f))
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
	if f, _ := ParseFilter("   "); !f.IsZero() {
		t.Error("a blank filter is not the zero filter")
	}
	if f, _ := ParseFilter("a = 1 AND b = 2 OR a = 3"); strings.Join(f.Columns(), ",") != "a,b" {
		t.Errorf("columns %v", f.Columns())
	}
	for expr, want := range map[string]string{
		"id >":                               "ends where a value",
		"id = 1 AND":                         "ends where a condition",
		"(id = 1":                            "not closed",
		"id = 'x":                            "quote",
		"id ! 1":                             "must be '!='",
		"id LIKE 'a%'":                       "expected =",
		"AND = 1":                            "keyword AND",
		"id = 1 id = 2":                      "unexpected",
		"id = abc":                           "expected a value",
		"id IS 3":                            "NULL",
		"id NOT = 1":                         "followed by IN",
		"id IN 1":                            "parentheses",
		"id = 1e999":                         "not a number",
		"§ = 1":                              "unexpected",
		strings.Repeat("x", 1001):            "at most 1000",
		strings.Repeat("NOT ", 40) + "a = 1": "nests deeper",
		strings.Repeat("a = 1 OR ", 64) + "a = 1": "at most 64",
	} {
		if _, err := ParseFilter(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40s: %v, want %q", expr, err, want)
		}
	}
	f, _ := ParseFilter("id = 'x'")
	if _, err := f.matches(r(f)); err == nil || !strings.Contains(err.Error(), "compare it with a number") {
		t.Errorf("text against a number column: %v", err)
	}
}

// FuzzParseFilter: any text either parses or is refused with a sentence,
// never a panic, and a parsed filter evaluates without one.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"id = 1", "a IN (1,'b',TRUE) OR NOT (b IS NULL)", `"x y" != 'it''s'`, "((((a>1))))", "a = 1e5 AND b <= -2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal without a sentence")
			}
			return
		}
		if len(flt.Columns()) > maxFilterTerms {
			t.Fatalf("%d columns past the bound", len(flt.Columns()))
		}
		for _, v := range []rowValue{{null: true}, {num: 1, isNum: true}, {text: "a"}, {b: true, isBool: true}} {
			_, _ = flt.matches(func(int) rowValue { return v })
		}
	})
}
