package persist

import "testing"

func TestRebind(t *testing.T) {
	dollar := Dialect{Placeholder: func(n int) string { return "$" + string(rune('0'+n)) }}
	cases := []struct {
		name    string
		d       Dialect
		in, out string
	}{
		{"sqlite keeps question marks", SQLite(), `SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = ? AND c = ?`},
		{"numbered placeholders", dollar, `UPDATE t SET a = ? WHERE b = ? AND c = ?`, `UPDATE t SET a = $1 WHERE b = $2 AND c = $3`},
		{"no placeholders", dollar, `SELECT 1`, `SELECT 1`},
		{"postgres past nine", Postgres(), `VALUES (?,?,?,?,?,?,?,?,?,?,?)`, `VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Rebind(tc.in); got != tc.out {
				t.Errorf("Rebind = %q, want %q", got, tc.out)
			}
		})
	}
}
