package handlers

// Client versions the per-table snippets pin, so a snippet copied today
// installs what it was written against. LanceDB JS and iceberg-go are the
// versions this repository builds and tests with (package.json, go.mod;
// TestSnippetVersionsMatchRepo keeps them equal); e2e's
// TestJourneySnippetsRunAsCopied runs those two snippets as copied. The
// others are the newest releases these snippets were written for; nothing
// here runs them.
const (
	lancedbJSVersion     = "0.39.0" // npm @lancedb/lancedb
	icebergGoVersion     = "v0.7.0" // github.com/apache/iceberg-go
	lancedbPyVersion     = "0.40.0" // PyPI lancedb
	pylanceVersion       = "14.0.2" // PyPI pylance
	lanceNamespaceVer    = "0.13.0" // PyPI lance-namespace
	pyicebergVersion     = "0.12.0" // PyPI pyiceberg
	duckdbVersion        = "1.5.6"  // PyPI duckdb (the lance and iceberg extensions load into it)
	icebergSparkRuntime  = "1.9.2"  // Maven org.apache.iceberg:iceberg-spark-runtime-3.5_2.12
	lanceSparkBundle     = "0.0.15" // Maven com.lancedb:lance-spark-bundle-3.5_2.12
	snippetKeyEnv        = "FLOE_API_KEY"
	snippetReadonlyLabel = "read-only"
)
