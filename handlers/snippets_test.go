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
			name: "lance bucket with a table: open it and count",
			in:   SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "vec", Namespace: []string{"prod"}, Table: "items", Lance: true},
			ids:  []string{"lancedb-js", "lancedb-python", "pylance", "duckdb-lance", "lance-spark"},
			want: []string{`connectNamespace("rest"`, `uri: "http://127.0.0.1:9101"`, `"x-api-key": process.env.FLOE_API_KEY`,
				`db.openTable("items", ["vec", "prod"])`, `ATTACH 'vec$prod'`, "lance-spark-bundle-3.5_2.12:" + lanceSparkBundle},
			notWant: []string{ice, "pyiceberg", "my_table", `"default"`},
		},
		{
			name:    "iceberg bucket with a namespace and no table: list its tables",
			in:      SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Iceberg: true},
			ids:     []string{"pyiceberg"},
			want:    []string{`uri="http://127.0.0.1:8181"`, `warehouse="lake"`, `token=os.environ["FLOE_API_KEY"]`, `list_tables("raw")`, "has no table yet"},
			notWant: []string{lance, "default"},
		},
		{
			name: "lance bucket without a namespace: list its namespaces",
			in:   SnippetInput{LanceURL: lance, Bucket: "vec", Lance: true},
			ids:  []string{"lancedb-js", "lancedb-python"},
			want: []string{`db.listNamespaces(["vec"])`, `list_namespaces(namespace_path=["vec"])`, "has no namespace yet"},
		},
		{
			name: "unset bucket shows both",
			in:   SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "old", Lance: true, Iceberg: true},
			ids:  []string{"lancedb-js", "lancedb-python", "pyiceberg"},
		},
		{
			name:    "surface off gives nothing for it",
			in:      SnippetInput{LanceURL: "", IcebergURL: ice, Bucket: "b", Lance: true, Iceberg: true},
			ids:     []string{"pyiceberg"},
			notWant: []string{"connectNamespace"},
		},
		{
			name: "s3 warehouse, clients bring their keys",
			in: SnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Lance: true, Iceberg: true,
				Store: &SnippetStore{Endpoint: "http://127.0.0.1:8333", Region: "us-east-1", PathStyle: true}},
			ids: []string{"lancedb-js", "lancedb-python", "pyiceberg"},
			want: []string{"// Table files live in the S3 store at http://127.0.0.1:8333 (region us-east-1, path-style).",
				"# AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment",
				`connectNamespace("rest"`, `warehouse="lake"`},
			notWant: []string{"nothing to configure"},
		},
		{
			name: "aws s3 with vended keys",
			in: SnippetInput{IcebergURL: ice, Bucket: "lake", Iceberg: true,
				Store: &SnippetStore{Region: "eu-west-1", Vended: true}},
			ids:     []string{"pyiceberg"},
			want:    []string{"# Table files live in AWS S3 (region eu-west-1).", "# floe hands out the endpoint, region and keys with each table: nothing to configure."},
			notWant: []string{"AWS_ACCESS_KEY_ID", "path-style"},
		},
		{
			name: "static vending tells a reader it gets no store keys",
			in: SnippetInput{IcebergURL: ice, Bucket: "lake", Iceberg: true,
				Store: &SnippetStore{Region: "eu-west-1", Vended: true, OwnKeys: true}},
			ids:     []string{"pyiceberg"},
			want:    []string{"# (--vend-credentials static). With a read-only key, bring your own: AWS_ACCESS_KEY_ID", "storage keys for readers need --vend-credentials sts"},
			notWant: []string{"nothing to configure"},
		},
		{
			name:    "local warehouse says nothing of storage",
			in:      SnippetInput{LanceURL: lance, Bucket: "vec", Lance: true},
			ids:     []string{"lancedb-js", "lancedb-python"},
			notWant: []string{"Table files live"},
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
			for _, w := range append(tc.notWant, "<") { // never a placeholder
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
