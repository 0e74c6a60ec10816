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
			name: "s3 warehouse, clients bring their keys",
			in: SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Lance: true, Iceberg: true,
				Store: &SnippetStore{Endpoint: "http://127.0.0.1:8333", Region: "us-east-1", PathStyle: true}},
			ids: []string{"lancedb-js", "lancedb-python", "pylance", "lance-spark", "duckdb-lance", "pyiceberg", "spark-iceberg", "duckdb-iceberg"},
			want: []string{"// Table files live in the S3 store at http://127.0.0.1:8333 (region us-east-1, path-style).",
				"# AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment",
				"CREATE SECRET floe_s3 (TYPE s3, KEY_ID '<AWS_ACCESS_KEY_ID>', SECRET '<AWS_SECRET_ACCESS_KEY>', REGION 'us-east-1', ENDPOINT '127.0.0.1:8333', USE_SSL false, URL_STYLE 'path');",
				`connectNamespace("rest"`, `warehouse="lake"`},
			notWant: []string{"nothing to configure"},
		},
		{
			name: "aws s3 with vended keys",
			in: SnippetInput{IcebergURL: ice, Bucket: "lake", Iceberg: true,
				Store: &SnippetStore{Region: "eu-west-1", Vended: true}},
			ids:     []string{"pyiceberg", "spark-iceberg", "duckdb-iceberg"},
			want:    []string{"# Table files live in AWS S3 (region eu-west-1).", "-- floe hands out the endpoint, region and keys with each table: nothing to configure."},
			notWant: []string{"CREATE SECRET floe_s3", "AWS_ACCESS_KEY_ID", "path-style"},
		},
		{
			name:    "local warehouse says nothing of storage",
			in:      SnippetInput{LanceURL: lance, Bucket: "vec", Lance: true},
			ids:     []string{"lancedb-js", "lancedb-python", "pylance", "lance-spark", "duckdb-lance"},
			notWant: []string{"Table files live", "CREATE SECRET floe_s3"},
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
