package handlers

import (
	"strings"
	"testing"
)

func TestSnippets(t *testing.T) {
	const lance, ice = "http://127.0.0.1:9101", "http://127.0.0.1:8181"
	tests := []struct {
		name    string
		in      SnippetInput
		ids     []string
		want    []string
		notWant []string
	}{
		{
			name: "lance bucket, both surfaces on",
			in:   SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "vec", Namespace: "prod", Lance: true},
			ids:  []string{"lancedb-js", "lancedb-python", "pylance", "lance-spark", "duckdb-lance"},
			want: []string{`connectNamespace("rest"`, `uri: "http://127.0.0.1:9101"`, `"x-api-key": "<API_KEY>"`,
				`db.openTable("my_table", ["vec", "prod"])`, `ATTACH 'vec$prod'`},
			notWant: []string{ice, "pyiceberg"},
		},
		{
			name:    "iceberg bucket",
			in:      SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Iceberg: true},
			ids:     []string{"pyiceberg", "spark-iceberg", "duckdb-iceberg"},
			want:    []string{`uri="http://127.0.0.1:8181"`, `warehouse="lake"`, `token="<API_KEY>"`, `spark.sql.catalog.floe.warehouse=lake`, `list_tables("default")`},
			notWant: []string{lance},
		},
		{
			name: "unset bucket shows both",
			in:   SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "old", Lance: true, Iceberg: true},
			ids:  []string{"lancedb-js", "lancedb-python", "pylance", "lance-spark", "duckdb-lance", "pyiceberg", "spark-iceberg", "duckdb-iceberg"},
		},
		{
			name:    "surface off gives nothing for it",
			in:      SnippetInput{LanceURL: "", IcebergURL: ice, Bucket: "b", Lance: true, Iceberg: true},
			ids:     []string{"pyiceberg", "spark-iceberg", "duckdb-iceberg"},
			notWant: []string{"connectNamespace"},
		},
		{
			name: "everything off",
			in:   SnippetInput{Bucket: "b", Lance: true, Iceberg: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Snippets(tc.in)
			var ids []string
			var all strings.Builder
			for _, s := range got {
				ids = append(ids, s.ID)
				all.WriteString(s.Code + "\n")
				if s.Engine == "" || s.Code == "" {
					t.Errorf("snippet %q has an empty engine or code", s.ID)
				}
			}
			if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
				t.Fatalf("ids %v, want %v", ids, tc.ids)
			}
			for _, w := range tc.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("snippets lack %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all.String(), w) {
					t.Errorf("snippets contain %q", w)
				}
			}
		})
	}
}

func TestGroupDigits(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 12: "12", 1234: "1,234", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := groupDigits(in); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", in, got, want)
		}
	}
}
