package handlers

import (
	"fmt"
	"strings"

	"github.com/floe/floe/views"
)

// APIKeyPlaceholder stands where a snippet needs a key; keys are shown once
// at creation and never put into pages.
const APIKeyPlaceholder = "<API_KEY>"

// SnippetInput is what connection snippets are generated from.
type SnippetInput struct {
	LanceURL   string // "http://127.0.0.1:9101"; "" = Lance surface off
	IcebergURL string // "http://127.0.0.1:8181"; "" = Iceberg surface off
	Bucket     string
	Namespace  string // first namespace level shown in examples
	Lance      bool   // include Lance snippets (bucket format Lance or unset)
	Iceberg    bool   // include Iceberg snippets
	// Store is the s3:// warehouse the tables live in; nil for local disk,
	// where clients need nothing beyond the catalog.
	Store *SnippetStore
}

// Snippets generates ready-to-copy connection examples. Nothing is produced
// for a surface that is off. Pure text: the caller renders it escaped.
func Snippets(in SnippetInput) []views.Snippet {
	ns := in.Namespace
	if ns == "" {
		ns = "default"
	}
	var out []views.Snippet
	if in.Lance && in.LanceURL != "" {
		out = append(out, lanceSnippets(in.LanceURL, in.Bucket, ns)...)
	}
	if in.Iceberg && in.IcebergURL != "" {
		out = append(out, icebergSnippets(in.IcebergURL, in.Bucket, ns)...)
	}
	if in.Store != nil {
		out = withStore(out, in.Store)
	}
	return out
}

func lanceSnippets(uri, bucket, ns string) []views.Snippet {
	id := fmt.Sprintf("[%q, %q]", bucket, ns)
	return []views.Snippet{
		{ID: "lancedb-js", Engine: "LanceDB (JavaScript)", Surface: "lance", Language: "js", Code: strings.Join([]string{
			`import { connectNamespace } from "@lancedb/lancedb";`,
			``,
			`const db = await connectNamespace("rest", {`,
			`  uri: "` + uri + `",`,
			`  headers: { "x-api-key": "` + APIKeyPlaceholder + `" },`,
			`});`,
			`// Identifiers are [bucket, namespace…].`,
			`console.log(await db.tableNames(` + id + `));`,
			`const table = await db.openTable("my_table", ` + id + `);`,
		}, "\n")},
		{ID: "lancedb-python", Engine: "LanceDB (Python)", Surface: "lance", Language: "python", Code: strings.Join([]string{
			`import lancedb`,
			``,
			`db = lancedb.connect_namespace("rest", {`,
			`    "uri": "` + uri + `",`,
			`    "header.x-api-key": "` + APIKeyPlaceholder + `",`,
			`})`,
			`print(db.table_names(namespace=` + id + `))`,
			`table = db.open_table("my_table", namespace=` + id + `)`,
		}, "\n")},
		{ID: "pylance", Engine: "pylance (lance_namespace REST)", Surface: "lance", Language: "python", Code: strings.Join([]string{
			`import lance`,
			`import lance_namespace`,
			``,
			`ns = lance_namespace.connect("rest", {`,
			`    "uri": "` + uri + `",`,
			`    "header.x-api-key": "` + APIKeyPlaceholder + `",`,
			`})`,
			fmt.Sprintf(`ds = lance.dataset(namespace=ns, table_id=[%q, %q, "my_table"])`, bucket, ns),
		}, "\n")},
		{ID: "lance-spark", Engine: "lance-spark", Surface: "lance", Language: "shell", Code: strings.Join([]string{
			`spark-sql \`,
			`  --packages com.lancedb:lance-spark-bundle-3.5_2.12:<lance-spark-version> \`,
			`  --conf spark.sql.catalog.lance=com.lancedb.lance.spark.LanceNamespaceSparkCatalog \`,
			`  --conf spark.sql.catalog.lance.impl=rest \`,
			`  --conf spark.sql.catalog.lance.uri=` + uri + ` \`,
			`  --conf spark.sql.catalog.lance.header.x-api-key=` + APIKeyPlaceholder,
			``,
			fmt.Sprintf("-- SELECT * FROM lance.`%s`.`%s`.my_table;", bucket, ns),
		}, "\n")},
		{ID: "duckdb-lance", Engine: "DuckDB (Lance)", Surface: "lance", Language: "sql", Code: strings.Join([]string{
			`INSTALL lance;`,
			`LOAD lance;`,
			`-- The namespace id is bucket$namespace.`,
			fmt.Sprintf(`ATTACH '%s$%s' AS floe (TYPE LANCE, ENDPOINT '%s', API_KEY '%s');`, bucket, ns, uri, APIKeyPlaceholder),
			`SHOW TABLES FROM floe.main;`,
		}, "\n")},
	}
}

func icebergSnippets(uri, bucket, ns string) []views.Snippet {
	return []views.Snippet{
		{ID: "pyiceberg", Engine: "PyIceberg", Surface: "iceberg", Language: "python", Code: strings.Join([]string{
			`from pyiceberg.catalog import load_catalog`,
			``,
			`catalog = load_catalog(`,
			`    "floe",`,
			`    type="rest",`,
			`    uri="` + uri + `",`,
			`    warehouse="` + bucket + `",`,
			`    token="` + APIKeyPlaceholder + `",`,
			`)`,
			`print(catalog.list_tables("` + ns + `"))`,
		}, "\n")},
		{ID: "spark-iceberg", Engine: "Spark (Iceberg REST)", Surface: "iceberg", Language: "shell", Code: strings.Join([]string{
			`spark-sql \`,
			`  --packages org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.9.2 \`,
			`  --conf spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \`,
			`  --conf spark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog \`,
			`  --conf spark.sql.catalog.floe.type=rest \`,
			`  --conf spark.sql.catalog.floe.uri=` + uri + ` \`,
			`  --conf spark.sql.catalog.floe.warehouse=` + bucket + ` \`,
			`  --conf spark.sql.catalog.floe.token=` + APIKeyPlaceholder,
			``,
			`-- SHOW TABLES IN floe.` + ns + `;`,
		}, "\n")},
		{ID: "duckdb-iceberg", Engine: "DuckDB (Iceberg)", Surface: "iceberg", Language: "sql", Code: strings.Join([]string{
			`INSTALL iceberg;`,
			`LOAD iceberg;`,
			`CREATE SECRET floe_key (TYPE iceberg, TOKEN '` + APIKeyPlaceholder + `');`,
			fmt.Sprintf(`ATTACH '%s' AS floe (TYPE iceberg, ENDPOINT '%s', SECRET floe_key);`, bucket, uri),
			`SHOW ALL TABLES;`,
		}, "\n")},
	}
}
