package handlers

import (
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// SnippetInput is what the side bar's and a bucket page's Connect snippets
// are generated from: the bucket, and the first namespace and table it
// holds (names that exist, never placeholders).
type SnippetInput struct {
	LanceURL   string // "http://127.0.0.1:9101"; "" = Lance surface off
	IcebergURL string // "http://127.0.0.1:8181"; "" = Iceberg surface off
	Bucket     string
	// Namespace is a namespace of the bucket (nil: it has none yet) and
	// Table a table in it ("" : none yet). With a table the snippets open
	// it and count its rows, as a table's own Connect tab does; without,
	// they list what there is.
	Namespace []string
	Table     string
	Lance     bool // include Lance snippets (bucket format Lance or unset)
	Iceberg   bool // include Iceberg snippets
	// Store is the s3:// warehouse the tables live in; nil for local disk,
	// where clients need nothing beyond the catalog.
	Store *SnippetStore
}

// Snippets generates ready-to-copy connection examples. Nothing is produced
// for a surface that is off. The key comes from $FLOE_API_KEY. Pure text:
// the caller renders it escaped.
func Snippets(in SnippetInput) []views.Snippet {
	var out []views.Snippet
	if in.Table != "" {
		t := TableSnippetInput{LanceURL: in.LanceURL, IcebergURL: in.IcebergURL, Bucket: in.Bucket, Namespace: in.Namespace, Table: in.Table, Store: in.Store}
		if in.Lance {
			t.Format = catalog.FormatLance
			out = append(out, TableSnippets(t)...)
		}
		if in.Iceberg {
			t.Format = catalog.FormatIceberg
			out = append(out, TableSnippets(t)...)
		}
		return out
	}
	if in.Lance && in.LanceURL != "" {
		out = append(out, lanceListSnippets(in)...)
	}
	if in.Iceberg && in.IcebergURL != "" {
		out = append(out, icebergListSnippets(in)...)
	}
	if in.Store != nil {
		out = withStore(out, in.Store)
	}
	return out
}

// emptyNote says what a listing snippet prints and why it does not open a
// table: there is none (or no namespace) in the bucket yet.
func emptyNote(c string, in SnippetInput) string {
	if len(in.Namespace) == 0 {
		return c + " Bucket " + in.Bucket + " has no namespace yet: this lists its namespaces (none until one is made)."
	}
	return c + " Namespace " + catalog.JoinNamespace(in.Namespace) + " has no table yet: this lists its tables (none until one is written)."
}

func lanceListSnippets(in SnippetInput) []views.Snippet {
	k := keyIn("")
	path := pyList(append([]string{in.Bucket}, in.Namespace...)...)
	uri := strconv.Quote(in.LanceURL)
	jsList, pyListCall := "await db.tableNames("+path+")", "db.table_names(namespace_path="+path+")"
	if len(in.Namespace) == 0 {
		jsList, pyListCall = "(await db.listNamespaces("+path+")).namespaces", "db.list_namespaces(namespace_path="+path+").namespaces"
	}
	return []views.Snippet{
		{ID: "lancedb-js", Engine: "LanceDB (JavaScript) " + lancedbJSVersion, Surface: "lance", Language: "js", Code: lines(append(runHeader("//", "connect.mjs",
			"npm install @lancedb/lancedb@"+lancedbJSVersion,
			"node connect.mjs"),
			keyNote("//", ""),
			emptyNote("//", in),
			`import { connectNamespace } from "@lancedb/lancedb";`,
			``,
			`const db = await connectNamespace("rest", {`,
			`  uri: `+uri+`,`,
			`  headers: { "x-api-key": `+k.js+` },`,
			`});`,
			`console.log(`+jsList+`);`,
		)...)},
		{ID: "lancedb-python", Engine: "LanceDB (Python) " + lancedbPyVersion, Surface: "lance", Language: "python", Code: lines(append(runHeader("#", "connect.py",
			"pip install lancedb=="+lancedbPyVersion,
			"python connect.py"),
			keyNote("#", ""),
			emptyNote("#", in),
			"import os\n\nimport lancedb",
			``,
			`db = lancedb.connect_namespace("rest", {`,
			`    "uri": `+uri+`,`,
			`    "header.x-api-key": `+k.py+`,`,
			`})`,
			`print(`+pyListCall+`)`,
		)...)},
	}
}

func icebergListSnippets(in SnippetInput) []views.Snippet {
	k := keyIn("")
	uri := strconv.Quote(in.IcebergURL)
	call := "catalog.list_namespaces()"
	if len(in.Namespace) > 0 {
		call = "catalog.list_tables(" + strconv.Quote(catalog.JoinNamespace(in.Namespace)) + ")"
	}
	return []views.Snippet{
		{ID: "pyiceberg", Engine: "PyIceberg " + pyicebergVersion, Surface: "iceberg", Language: "python", Code: lines(append(runHeader("#", "connect.py",
			`pip install "pyiceberg[pyarrow]==`+pyicebergVersion+`"`,
			"python connect.py"),
			keyNote("#", ""),
			emptyNote("#", in),
			"import os\n\nfrom pyiceberg.catalog import load_catalog",
			``,
			`catalog = load_catalog(`,
			`    "floe",`,
			`    type="rest",`,
			`    uri=`+uri+`,`,
			`    warehouse=`+strconv.Quote(in.Bucket)+`,`,
			`    token=`+k.py+`,`,
			`)`,
			`print(`+call+`)`,
		)...)},
	}
}
