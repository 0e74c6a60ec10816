package handlers

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResultSummary(t *testing.T) {
	cases := []struct {
		name   string
		result string
		want   string
		ok     bool
	}{
		{"compaction", `{"before":{"version":12,"fragments":12,"bytes":5557452,"versions":12},"after":{"version":13,"fragments":1,"bytes":5347737,"versions":13},"versions_removed":0}`,
			"12 → 1 fragments, 5.3 → 5.1 MiB, 0 versions removed", true},
		{"cleanup infers removed versions", `{"before":{"version":20,"fragments":3,"bytes":2048,"versions":20},"after":{"version":21,"fragments":3,"bytes":1536,"versions":4}}`,
			"3 → 3 fragments, 2.0 → 1.5 KiB, 17 versions removed", true},
		{"index build names the index change", `{"before":{"version":3,"fragments":1,"bytes":900,"indices":0,"unindexed_rows":300},"after":{"version":4,"fragments":1,"bytes":1900,"indices":1,"unindexed_rows":0}}`,
			"1 → 1 fragments, 900 B → 1.9 KiB, unindexed rows 300 → 0, 0 → 1 indices", true},
		{"no-op", `{"before":{"version":5,"fragments":5},"after":{"version":5,"fragments":5}}`, "nothing to do", true},
		{"cleanup dry run says what it would delete", `{"before":{"version":8,"versions":8},"after":{"version":8,"versions":8},"ran":"dry_run","versions_would_remove":[1,2,3,4,5,6],"files_would_delete_count":14,"bytes_would_delete":2048}`,
			"dry run: would remove 6 versions and delete 14 files (2.0 KiB); nothing was deleted", true},
		{"no figures", `{"files_removed":3}`, "", false},
		{"figures of another shape", `{"before":{"note":"x"},"after":{"note":"y"}}`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			dec := json.NewDecoder(strings.NewReader(c.result))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			got, ok := resultSummary(m)
			if got != c.want || ok != c.ok {
				t.Fatalf("resultSummary = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
