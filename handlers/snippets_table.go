package handlers

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// TableSnippetInput is what one table's Connect snippets are made from: the
// real addresses and names, so a snippet runs as copied.
type TableSnippetInput struct {
	LanceURL   string // "" = Lance surface off
	IcebergURL string // "" = Iceberg surface off
	Bucket     string
	Namespace  []string
	Table      string
	Format     catalog.Format
	// Key is a key just made for these snippets, written into them; "" makes
	// each snippet read it from $FLOE_API_KEY instead (never a placeholder).
	Key   string
	Store *SnippetStore // s3:// warehouse; nil for local disk
	// SigV4, when set, adds the Iceberg snippets that sign with an access
	// key pair and name the bucket by its ARN.
	SigV4 *SnippetSigV4
}

// TableSnippets generates, for each engine the table's format supports,
// a program or command that opens this table and prints its row count.
// Pure text: the caller renders it escaped.
func TableSnippets(in TableSnippetInput) []views.Snippet {
	var out []views.Snippet
	switch {
	case in.Format == catalog.FormatLance && in.LanceURL != "":
		out = lanceTableSnippets(in)
	case in.Format == catalog.FormatIceberg && in.IcebergURL != "":
		out = icebergTableSnippets(in)
		if in.SigV4 != nil {
			out = append(out, icebergSigV4Snippets(in)...)
		}
	}
	if in.Store != nil {
		out = withStore(out, in.Store)
	}
	return out
}

// snippetKey is how a snippet of a language gets the key.
type snippetKey struct{ js, py, goExpr, shell string }

func keyIn(key string) snippetKey {
	if key == "" {
		return snippetKey{
			js:     "process.env." + snippetKeyEnv,
			py:     `os.environ["` + snippetKeyEnv + `"]`,
			goExpr: `os.Getenv("` + snippetKeyEnv + `")`,
			shell:  `"$` + snippetKeyEnv + `"`,
		}
	}
	q := strconv.Quote(key)
	return snippetKey{js: q, py: q, goExpr: q, shell: "'" + key + "'"}
}

// keyNote is the first comment line: where the key comes from.
func keyNote(c, key string) string {
	if key == "" {
		return c + " Reads a key from $" + snippetKeyEnv + " (make a read-only one with the button above)."
	}
	return c + " Carries the " + snippetReadonlyLabel + " key just made; it reads this table alone and is shown on this page once."
}

// pyList is a Python (and JS) list literal of strings.
func pyList(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = strconv.Quote(p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func lanceTableSnippets(in TableSnippetInput) []views.Snippet {
	k := keyIn(in.Key)
	nsID := pyList(append([]string{in.Bucket}, in.Namespace...)...)
	tableID := pyList(append(append([]string{in.Bucket}, in.Namespace...), in.Table)...)
	name := strconv.Quote(in.Table)
	uri := strconv.Quote(in.LanceURL)
	pyImport := "import lancedb"
	if in.Key == "" {
		pyImport = "import os\n\nimport lancedb"
	}
	sparkName := sparkIdent(append(append([]string{"lance", in.Bucket}, in.Namespace...), in.Table)...)
	return []views.Snippet{
		{ID: "lancedb-js", Engine: "LanceDB (JavaScript) " + lancedbJSVersion, Surface: "lance", Language: "js", Code: lines(append(runHeader("//", "count.mjs",
			"npm install @lancedb/lancedb@"+lancedbJSVersion,
			"node count.mjs"),
			keyNote("//", in.Key),
			`import { connectNamespace } from "@lancedb/lancedb";`,
			``,
			`const db = await connectNamespace("rest", {`,
			`  uri: `+uri+`,`,
			`  headers: { "x-api-key": `+k.js+` },`,
			`});`,
			`const table = await db.openTable(`+name+`, `+nsID+`);`,
			"console.log(`${await table.countRows()} rows`);",
		)...)},
		{ID: "lancedb-python", Engine: "LanceDB (Python) " + lancedbPyVersion, Surface: "lance", Language: "python", Code: lines(append(runHeader("#", "count.py",
			"pip install lancedb=="+lancedbPyVersion,
			"python count.py"),
			keyNote("#", in.Key),
			pyImport,
			``,
			`db = lancedb.connect_namespace("rest", {`,
			`    "uri": `+uri+`,`,
			`    "header.x-api-key": `+k.py+`,`,
			`})`,
			`table = db.open_table(`+name+`, namespace_path=`+nsID+`)`, // lancedb 0.40 names the path namespace_path
			`print(table.count_rows(), "rows")`,
		)...)},
		{ID: "pylance", Engine: "pylance " + pylanceVersion, Surface: "lance", Language: "python", Code: lines(append(runHeader("#", "count.py",
			"pip install pylance=="+pylanceVersion+" lance-namespace=="+lanceNamespaceVer,
			"python count.py"),
			keyNote("#", in.Key),
			strings.Replace(pyImport, "import lancedb", "import lance\nimport lance_namespace", 1),
			``,
			`ns = lance_namespace.connect("rest", {`,
			`    "uri": `+uri+`,`,
			`    "header.x-api-key": `+k.py+`,`,
			`})`,
			`ds = lance.dataset(namespace=ns, table_id=`+tableID+`)`,
			`print(ds.count_rows(), "rows")`,
		)...)},
		{ID: "duckdb-lance", Engine: "DuckDB " + duckdbVersion + " (lance extension)", Surface: "lance", Language: "python", Code: lines(append(duckdbStart(in, k),
			`con.sql("INSTALL lance FROM community; LOAD lance;")`,
			`# The namespace id is bucket$namespace.`,
			`con.sql(`+pyStr("ATTACH "+sqlString(strings.Join(append([]string{in.Bucket}, in.Namespace...), "$"))+" AS floe (TYPE LANCE, ENDPOINT '"+in.LanceURL+"', API_KEY '")+` + key + "')")`,
			`print(con.sql(`+pyStr("SELECT count(*) FROM floe.main."+sqlIdent(in.Table))+`).fetchone()[0], "rows")`,
		)...)},
		{ID: "lance-spark", Engine: "Spark 3.5 (lance-spark " + lanceSparkBundle + ")", Surface: "lance", Language: "shell", Code: lines(
			keyNote("#", in.Key),
			`spark-sql \`,
			`  --packages com.lancedb:lance-spark-bundle-3.5_2.12:`+lanceSparkBundle+` \`,
			`  --conf spark.sql.catalog.lance=com.lancedb.lance.spark.LanceNamespaceSparkCatalog \`,
			`  --conf spark.sql.catalog.lance.impl=rest \`,
			`  --conf spark.sql.catalog.lance.uri=`+in.LanceURL+` \`,
			`  --conf spark.sql.catalog.lance.header.x-api-key=`+k.shell+` \`,
			`  -e `+shellQuote("SELECT count(*) AS rows FROM "+sparkName),
		)},
	}
}

func icebergTableSnippets(in TableSnippetInput) []views.Snippet {
	k := keyIn(in.Key)
	ident := pyList(append(append([]string{}, in.Namespace...), in.Table)...)
	pyIdent := "(" + strings.TrimSuffix(strings.TrimPrefix(ident, "["), "]") + ")"
	uri := strconv.Quote(in.IcebergURL)
	osImport := ""
	goOS := ""
	if in.Key == "" {
		osImport, goOS = "import os\n\n", "\n\t\"os\""
	}
	sparkName := sparkIdent(append(append([]string{"floe"}, in.Namespace...), in.Table)...)
	duckName := "floe." + sqlIdent(strings.Join(in.Namespace, ".")) + "." + sqlIdent(in.Table)
	return []views.Snippet{
		{ID: "iceberg-go", Engine: "iceberg-go " + icebergGoVersion, Surface: "iceberg", Language: "go", Code: lines(append(goRunHeader(),
			keyNote("//", in.Key),
			`package main`,
			``,
			`import (`,
			"\t\"context\"",
			"\t\"fmt\"",
			"\t\"log\""+goOS,
			``,
			"\t\"github.com/apache/iceberg-go/catalog/rest\"",
			"\t\"github.com/apache/iceberg-go/table\""+goS3IO(in.Store),
			`)`,
			``,
			`func main() {`,
			"\tctx := context.Background()",
			"\tcat, err := rest.NewCatalog(ctx, \"floe\", "+uri+",",
			"\t\trest.WithWarehouseLocation("+strconv.Quote(in.Bucket)+"),",
			"\t\trest.WithOAuthToken("+k.goExpr+"))",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\ttbl, err := cat.LoadTable(ctx, table.Identifier"+goList(ident)+")",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\trows, err := tbl.Scan().ToArrowTable(ctx)",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\tdefer rows.Release()",
			"\tfmt.Printf(\"%d rows\\n\", rows.NumRows())",
			`}`,
		)...)},
		{ID: "pyiceberg", Engine: "PyIceberg " + pyicebergVersion, Surface: "iceberg", Language: "python", Code: lines(append(runHeader("#", "count.py",
			`pip install "pyiceberg[pyarrow]==`+pyicebergVersion+`"`,
			"python count.py"),
			keyNote("#", in.Key),
			osImport+`from pyiceberg.catalog import load_catalog`,
			``,
			`catalog = load_catalog(`,
			`    "floe",`,
			`    type="rest",`,
			`    uri=`+uri+`,`,
			`    warehouse=`+strconv.Quote(in.Bucket)+`,`,
			`    token=`+k.py+`,`,
			`)`,
			`table = catalog.load_table(`+pyIdent+`)`,
			`print(table.scan().to_arrow().num_rows, "rows")`,
		)...)},
		{ID: "duckdb-iceberg", Engine: "DuckDB " + duckdbVersion + " (iceberg extension)", Surface: "iceberg", Language: "python", Code: lines(append(duckdbStart(in, k),
			`con.sql("INSTALL iceberg; LOAD iceberg;")`,
			`con.sql(f"CREATE SECRET floe_key (TYPE iceberg, TOKEN '{key}')")`,
			`con.sql("ATTACH '`+in.Bucket+`' AS floe (TYPE iceberg, ENDPOINT '`+in.IcebergURL+`', SECRET floe_key)")`,
			`print(con.sql(`+pyStr("SELECT count(*) FROM "+duckName)+`).fetchone()[0], "rows")`,
		)...)},
		{ID: "spark-iceberg", Engine: "Spark 3.5 (Iceberg " + icebergSparkRuntime + ")", Surface: "iceberg", Language: "shell", Code: lines(
			keyNote("#", in.Key),
			`spark-sql \`,
			`  --packages org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:`+icebergSparkRuntime+` \`,
			`  --conf spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \`,
			`  --conf spark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog \`,
			`  --conf spark.sql.catalog.floe.type=rest \`,
			`  --conf spark.sql.catalog.floe.uri=`+in.IcebergURL+` \`,
			`  --conf spark.sql.catalog.floe.warehouse=`+in.Bucket+` \`,
			`  --conf spark.sql.catalog.floe.token=`+k.shell+` \`,
			`  -e `+shellQuote("SELECT count(*) AS rows FROM "+sparkName),
		)},
	}
}

// duckdbStart opens the DuckDB snippets: install line, key, connection and,
// on an S3 warehouse that vends no keys, DuckDB's own S3 secret from the
// AWS variables (DuckDB reads table files itself, not through the catalog).
func duckdbStart(in TableSnippetInput, k snippetKey) []string {
	s3 := in.Store != nil && !in.Store.Vended
	imports := "import duckdb"
	if in.Key == "" || s3 {
		imports = "import os\n\nimport duckdb"
	}
	out := append(runHeader("#", "count.py", "pip install duckdb=="+duckdbVersion, "python count.py"),
		keyNote("#", in.Key), imports, ``, `key = `+k.py, `con = duckdb.connect()`)
	if !s3 {
		return out
	}
	opts := "TYPE s3, KEY_ID '{kid}', SECRET '{secret}', REGION '" + in.Store.Region + "'"
	if u, err := url.Parse(in.Store.Endpoint); err == nil && u.Host != "" {
		opts += ", ENDPOINT '" + u.Host + "'"
		if u.Scheme == "http" {
			opts += ", USE_SSL false"
		}
	}
	if in.Store.PathStyle {
		opts += ", URL_STYLE 'path'"
	}
	return append(out,
		`kid, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]`,
		`con.sql(f"CREATE SECRET floe_s3 (`+opts+`)")`)
}

func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

// RunPrefix starts each command line of a snippet's header, after the
// language's comment marker: "// $ go run .". The commands are the whole of
// what running the snippet takes, in order, in an empty directory; e2e's
// snippet journey runs them literally.
const RunPrefix = "$ "

// runHeader is a snippet's first lines: the file to save it as and the
// commands that run it there, one to a line.
func runHeader(c, file string, cmds ...string) []string {
	out := []string{c + " In an empty directory, save this as " + file + " and run:"}
	for _, cmd := range cmds {
		out = append(out, c+" "+RunPrefix+cmd)
	}
	return out
}

// RunCommands reads a snippet's header commands back out of its text, in
// order: every comment line whose text starts with RunPrefix.
func RunCommands(code string) []string {
	var out []string
	for l := range strings.SplitSeq(code, "\n") {
		for _, c := range []string{"// ", "# "} {
			if cmd, ok := strings.CutPrefix(l, c+RunPrefix); ok {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// goRunHeader is the iceberg-go snippets' header. go get adds the module;
// go mod tidy then records the sums of every package the program imports
// (without it go run stops at "missing go.sum entry").
func goRunHeader() []string {
	return runHeader("//", "main.go",
		"go mod init count",
		"go get github.com/apache/iceberg-go@"+icebergGoVersion,
		"go mod tidy",
		"go run .")
}

// goS3IO is the import that registers iceberg-go's s3:// file IO, which a
// table on an S3 warehouse is read through (without it: "io scheme not
// registered"); nothing on a local warehouse.
func goS3IO(st *SnippetStore) string {
	if st == nil {
		return ""
	}
	return "\n\n\t// Registers the s3:// file IO the table's files are read through.\n\t_ \"github.com/apache/iceberg-go/io/gocloud/s3\""
}

// goList turns a ["a", "b"] literal into Go's {"a", "b"}.
func goList(list string) string {
	return "{" + strings.TrimSuffix(strings.TrimPrefix(list, "["), "]") + "}"
}

// sparkIdent joins backquoted Spark SQL identifiers (a backquote in a
// name doubled, as Spark reads it).
func sparkIdent(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(q, ".")
}

// shellQuote is one single-quoted shell word: a quote inside closes the
// word, is escaped and opens it again.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sqlString is a single-quoted SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pyStr is a Python string literal (names are printable text: only \
// and the quote need escaping), in double quotes unless the text holds a
// double quote and no single one, so SQL inside reads as it is.
func pyStr(s string) string {
	q := `"`
	if strings.Contains(s, `"`) && !strings.Contains(s, "'") {
		q = "'"
	}
	return q + strings.NewReplacer(`\`, `\\`, q, `\`+q).Replace(s) + q
}

// sqlIdent is a double-quoted SQL identifier, for DuckDB.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// snippetKeyName names the read-only key the Connect tab's button makes
// after the one table it reads (its only grant).
func snippetKeyName(ref catalog.TableRef) string {
	name := fmt.Sprintf("%s for %s/%s/%s", snippetReadonlyLabel, ref.Bucket, catalog.JoinNamespace(ref.Namespace), ref.Name)
	if r := []rune(name); len(r) > maxKeyNameLen {
		name = string(r[:maxKeyNameLen])
	}
	return name
}
