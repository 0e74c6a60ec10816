package handlers

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

func TestTableSnippets(t *testing.T) {
	const lance, ice = "http://127.0.0.1:9101", "http://127.0.0.1:8181"
	tests := []struct {
		name    string
		in      TableSnippetInput
		ids     []string
		want    []string
		notWant []string
	}{
		{
			name: "lance table, key from the environment",
			in:   TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "vec", Namespace: []string{"prod", "eu"}, Table: "items", Format: catalog.FormatLance},
			ids:  []string{"lancedb-js", "lancedb-python", "pylance", "duckdb-lance", "lance-spark"},
			want: []string{`db.openTable("items", ["vec", "prod", "eu"])`, `"x-api-key": process.env.FLOE_API_KEY`, `table_id=["vec", "prod", "eu", "items"]`,
				"ATTACH 'vec$prod$eu'", "FROM `lance`.`vec`.`prod`.`eu`.`items`", `"$FLOE_API_KEY"`, "import os"},
			notWant: []string{"<", ice, "my_table"},
		},
		{
			name: "iceberg table with a key written in",
			in:   TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg, Key: "floe_abc"},
			ids:  []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg"},
			want: []string{`rest.WithOAuthToken("floe_abc")`, `table.Identifier{"raw", "events"}`, `catalog.load_table(("raw", "events"))`, `token="floe_abc"`,
				`key = "floe_abc"`, `floe."raw"."events"`, "spark.sql.catalog.floe.token='floe_abc'", "// $ go mod tidy\n// $ go run .\n"},
			notWant: []string{"<", "FLOE_API_KEY", "import os", `"os"`, lance, "io/gocloud/s3"},
		},
		{
			name: "iceberg table with SigV4 and the bucket ARN, pair written in",
			in: TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg, Key: "floe_abc",
				SigV4: &SnippetSigV4{Region: "us-east-1", WarehouseARN: "arn:aws:s3tables:us-east-1:123456789012:bucket/lake", AccessKeyID: "FLOEAKID", SecretAccessKey: "s3cr3t"}},
			ids: []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg", "iceberg-go-sigv4", "pyiceberg-sigv4", "duckdb-iceberg-sigv4", "spark-iceberg-sigv4"},
			want: []string{`rest.WithSigV4RegionSvc("us-east-1", "s3tables")`, `rest.WithWarehouseLocation("arn:aws:s3tables:us-east-1:123456789012:bucket/lake")`,
				`credentials.NewStaticCredentialsProvider("FLOEAKID", "s3cr3t", "")`,
				`"rest.sigv4-enabled": "true"`, `"rest.signing-name": "s3tables"`, `"rest.signing-region": "us-east-1"`, `os.environ["AWS_ACCESS_KEY_ID"] = "FLOEAKID"`,
				`"warehouse": "arn:aws:s3tables:us-east-1:123456789012:bucket/lake"`,
				"KEY_ID '{kid}'", `kid, secret = "FLOEAKID", "s3cr3t"`, "AUTHORIZATION_TYPE 'sigv4'", "ATTACH 'arn:aws:s3tables:us-east-1:123456789012:bucket/lake'",
				"spark.sql.catalog.floe.rest.sigv4-enabled=true", "rest.access-key-id='FLOEAKID'", "rest.secret-access-key='s3cr3t'", "iceberg-aws-bundle:1.9.2",
				"spark.sql.catalog.floe.warehouse=arn:aws:s3tables:us-east-1:123456789012:bucket/lake"},
			notWant: []string{"<", "FLOE_ACCESS_KEY_ID", `"os"`, lance},
		},
		{
			name: "SigV4 pair from the environment",
			in: TableSnippetInput{IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg,
				SigV4: &SnippetSigV4{Region: "eu-west-1", WarehouseARN: "arn:aws:s3tables:eu-west-1:1:bucket/lake"}},
			ids: []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg", "iceberg-go-sigv4", "pyiceberg-sigv4", "duckdb-iceberg-sigv4", "spark-iceberg-sigv4"},
			want: []string{`os.Getenv("FLOE_ACCESS_KEY_ID"), os.Getenv("FLOE_SECRET_ACCESS_KEY")`, `os.environ["AWS_SECRET_ACCESS_KEY"] = os.environ["FLOE_SECRET_ACCESS_KEY"]`,
				`rest.access-key-id="$FLOE_ACCESS_KEY_ID"`, `rest.WithSigV4RegionSvc("eu-west-1", "s3tables")`},
			notWant: []string{"<"},
		},
		{
			name: "SigV4 on a store whose keys clients bring",
			in: TableSnippetInput{IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg, Key: "floe_abc",
				Store: &SnippetStore{Endpoint: "http://127.0.0.1:8333", Region: "us-east-1", PathStyle: true},
				SigV4: &SnippetSigV4{Region: "us-east-1", WarehouseARN: "arn:aws:s3tables:us-east-1:1:bucket/lake", AccessKeyID: "FLOEAKID", SecretAccessKey: "s"}},
			ids:  []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg", "iceberg-go-sigv4", "pyiceberg-sigv4", "duckdb-iceberg-sigv4", "spark-iceberg-sigv4"},
			want: []string{`The store's own keys go in as "s3.access-key-id"`},
		},
		{
			name: "lance table gets no SigV4 snippets",
			in: TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "vec", Namespace: []string{"prod"}, Table: "items", Format: catalog.FormatLance,
				SigV4: &SnippetSigV4{Region: "us-east-1", WarehouseARN: "arn:aws:s3tables:us-east-1:1:bucket/vec"}},
			ids:     []string{"lancedb-js", "lancedb-python", "pylance", "duckdb-lance", "lance-spark"},
			notWant: []string{"sigv4"},
		},
		{
			name: "names with spaces, quotes and case are quoted for each language",
			in:   TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"Raw Data"}, Table: `It's "T"`, Format: catalog.FormatIceberg},
			ids:  []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg"},
			want: []string{`print(con.sql("SELECT count(*) FROM floe.\"Raw Data\".\"It's \"\"T\"\"\"").fetchone()[0], "rows")`,
				"-e 'SELECT count(*) AS rows FROM `floe`.`Raw Data`.`It'\\''s \"T\"`'"},
		},
		{
			name: "lance names with spaces and case",
			in:   TableSnippetInput{LanceURL: lance, Bucket: "vec", Namespace: []string{"My NS"}, Table: "O'Brien", Format: catalog.FormatLance},
			ids:  []string{"lancedb-js", "lancedb-python", "pylance", "duckdb-lance", "lance-spark"},
			want: []string{`con.sql("ATTACH 'vec$My NS' AS floe (TYPE LANCE, ENDPOINT '` + lance + `', API_KEY '" + key + "')")`,
				`print(con.sql("SELECT count(*) FROM floe.main.\"O'Brien\"").fetchone()[0], "rows")`},
		},
		{
			name:    "surface off gives nothing",
			in:      TableSnippetInput{LanceURL: lance, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg},
			ids:     nil,
			notWant: []string{"iceberg"},
		},
		{
			name: "s3 warehouse, clients bring their own storage keys",
			in: TableSnippetInput{LanceURL: lance, IcebergURL: ice, Bucket: "lake", Namespace: []string{"raw"}, Table: "events", Format: catalog.FormatIceberg, Key: "floe_abc",
				Store: &SnippetStore{Endpoint: "http://127.0.0.1:8333", Region: "us-east-1", PathStyle: true}},
			ids: []string{"iceberg-go", "pyiceberg", "duckdb-iceberg", "spark-iceberg"},
			want: []string{"// Table files live in the S3 store at http://127.0.0.1:8333 (region us-east-1, path-style).",
				`os.environ["AWS_ACCESS_KEY_ID"]`, "ENDPOINT '127.0.0.1:8333', USE_SSL false, URL_STYLE 'path'",
				"\t_ \"github.com/apache/iceberg-go/io/gocloud/s3\"\n)"},
			notWant: []string{"<"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snips := TableSnippets(tc.in)
			var ids []string
			var all strings.Builder
			for _, s := range snips {
				ids = append(ids, s.ID)
				all.WriteString(s.Code)
			}
			if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
				t.Fatalf("ids %v, want %v", ids, tc.ids)
			}
			for _, w := range tc.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("missing %q in:\n%s", w, all.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all.String(), w) {
					t.Errorf("has %q", w)
				}
			}
		})
	}
}

// TestSnippetRunHeader pins the commands each runnable snippet's header
// gives, in order: e2e's snippet journey runs exactly these lines.
func TestSnippetRunHeader(t *testing.T) {
	goCmds := []string{"go mod init count", "go get github.com/apache/iceberg-go@" + icebergGoVersion, "go mod tidy", "go run ."}
	want := map[string][]string{
		"lancedb-js":       {"npm install @lancedb/lancedb@" + lancedbJSVersion, "node count.mjs"},
		"iceberg-go":       goCmds,
		"iceberg-go-sigv4": goCmds,
	}
	store := &SnippetStore{Endpoint: "http://127.0.0.1:8333", Region: "us-east-1", PathStyle: true, Vended: true}
	sig := &SnippetSigV4{Region: "us-east-1", WarehouseARN: "arn:aws:s3tables:us-east-1:1:bucket/lake"}
	var snips []views.Snippet
	for _, st := range []*SnippetStore{nil, store} {
		snips = append(snips, TableSnippets(TableSnippetInput{LanceURL: "http://l", Bucket: "vec", Namespace: []string{"n"}, Table: "t", Format: catalog.FormatLance, Store: st})...)
		snips = append(snips, TableSnippets(TableSnippetInput{IcebergURL: "http://i", Bucket: "lake", Namespace: []string{"n"}, Table: "t", Format: catalog.FormatIceberg, Store: st, SigV4: sig})...)
	}
	seen := map[string]int{}
	for _, s := range snips {
		w, ok := want[s.ID]
		if !ok {
			continue
		}
		seen[s.ID]++
		if got := RunCommands(s.Code); !slices.Equal(got, w) {
			t.Errorf("%s runs %q, want %q", s.ID, got, w)
		}
	}
	for id := range want {
		if seen[id] != 2 {
			t.Errorf("%s seen %d times, want once per warehouse", id, seen[id])
		}
	}
}

// TestSnippetVersionsMatchRepo keeps the two versions the snippet journey
// runs equal to the ones this repository builds with.
func TestSnippetVersionsMatchRepo(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/apache/iceberg-go " + icebergGoVersion + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q: the snippets pin a version the repo does not build with", strings.TrimSpace(want))
	}
	raw, err := os.ReadFile("../package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := pkg.Dependencies["@lancedb/lancedb"]; got != lancedbJSVersion {
		t.Errorf("package.json has @lancedb/lancedb %q, snippets pin %s", got, lancedbJSVersion)
	}
}
