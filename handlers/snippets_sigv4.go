package handlers

import (
	"strconv"
	"strings"

	"github.com/floe/floe/views"
)

// SnippetSigV4 is what the SigV4 snippets need: engines configured the way
// AWS documents its S3 Tables Iceberg endpoint sign each request with an
// API key's access key pair (signing name s3tables) and name the bucket by
// its ARN.
type SnippetSigV4 struct {
	Region       string // the signing region, --s3tables-region
	WarehouseARN string // arn:aws:s3tables:<region>:<account>:bucket/<name>
	// AccessKeyID and SecretAccessKey are the pair of a key just made for
	// these snippets, written into them; "" makes each snippet read the
	// pair from $FLOE_ACCESS_KEY_ID and $FLOE_SECRET_ACCESS_KEY (not the
	// AWS_* variables, which may hold the object store's keys).
	AccessKeyID, SecretAccessKey string
}

// Where a SigV4 snippet reads the pair from when none was just made.
const (
	snippetAccessKeyEnv = "FLOE_ACCESS_KEY_ID"
	snippetSecretEnv    = "FLOE_SECRET_ACCESS_KEY"
	// icebergAWSBundle is the Maven artifact that carries Java Iceberg's
	// SigV4 signer; it goes beside the Spark runtime of the same version.
	icebergAWSBundle = "org.apache.iceberg:iceberg-aws-bundle"
)

// sigV4Pair is how a snippet of a language gets the pair.
type sigV4Pair struct{ id, secret snippetKey }

func pairIn(s *SnippetSigV4) sigV4Pair {
	if s.AccessKeyID == "" {
		env := func(name string) snippetKey {
			return snippetKey{py: `os.environ["` + name + `"]`, goExpr: `os.Getenv("` + name + `")`, shell: `"$` + name + `"`}
		}
		return sigV4Pair{env(snippetAccessKeyEnv), env(snippetSecretEnv)}
	}
	lit := func(v string) snippetKey {
		q := strconv.Quote(v)
		return snippetKey{py: q, goExpr: q, shell: "'" + v + "'"}
	}
	return sigV4Pair{lit(s.AccessKeyID), lit(s.SecretAccessKey)}
}

// pairNote is the first comment line: where the pair comes from.
func pairNote(c string, s *SnippetSigV4) string {
	if s.AccessKeyID == "" {
		return c + " Signs with an API key's access key pair from $" + snippetAccessKeyEnv + " and $" + snippetSecretEnv + " (floe token create prints one)."
	}
	return c + " Signs with the access key pair of the " + snippetReadonlyLabel + " key just made; it is shown on this page once."
}

// icebergSigV4Snippets connect to the table the AWS S3 Tables way: SigV4
// (signing name s3tables, region --s3tables-region) and warehouse = the
// bucket's ARN. The iceberg-go one is run as copied by e2e's snippet
// journey; Spark, PyIceberg and DuckDB cannot run here, so theirs follow
// those engines' documented settings.
func icebergSigV4Snippets(in TableSnippetInput) []views.Snippet {
	s := in.SigV4
	p := pairIn(s)
	ident := pyList(append(append([]string{}, in.Namespace...), in.Table)...)
	pyIdent := "(" + strings.TrimSuffix(strings.TrimPrefix(ident, "["), "]") + ")"
	uri, arn, region := strconv.Quote(in.IcebergURL), strconv.Quote(s.WarehouseARN), strconv.Quote(s.Region)
	goOS, pyOS := "", ""
	if s.AccessKeyID == "" {
		goOS, pyOS = "\n\t\"os\"", "import os\n\n"
	}
	// On a store whose keys clients bring, the AWS_* variables PyIceberg
	// signs with are not the store's: those go in as s3.* properties.
	pyStore := ""
	if in.Store != nil && !in.Store.Vended {
		pyStore = "\n# The store's own keys go in as \"s3.access-key-id\" and \"s3.secret-access-key\" below."
	}
	sparkName := sparkIdent(append(append([]string{"floe"}, in.Namespace...), in.Table)...)
	duckName := "floe." + sqlIdent(strings.Join(in.Namespace, ".")) + "." + sqlIdent(in.Table)
	return []views.Snippet{
		{ID: "iceberg-go-sigv4", Engine: "iceberg-go " + icebergGoVersion + " (SigV4, bucket ARN)", Surface: "iceberg", Language: "go", Code: lines(append(goRunHeader(),
			pairNote("//", s),
			`package main`,
			``,
			`import (`,
			"\t\"context\"",
			"\t\"fmt\"",
			"\t\"log\""+goOS,
			``,
			"\t\"github.com/apache/iceberg-go/catalog/rest\"",
			"\t\"github.com/apache/iceberg-go/table\"",
			"\t\"github.com/aws/aws-sdk-go-v2/aws\"",
			"\t\"github.com/aws/aws-sdk-go-v2/credentials\""+goS3IO(in.Store),
			`)`,
			``,
			`func main() {`,
			"\tctx := context.Background()",
			"\tsigner := aws.Config{Region: "+region+",",
			"\t\tCredentials: credentials.NewStaticCredentialsProvider("+p.id.goExpr+", "+p.secret.goExpr+", \"\")}",
			"\tcat, err := rest.NewCatalog(ctx, \"floe\", "+uri+",",
			"\t\trest.WithWarehouseLocation("+arn+"),",
			"\t\trest.WithSigV4RegionSvc("+region+", \"s3tables\"),",
			"\t\trest.WithAwsConfig(signer))",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\ttbl, err := cat.LoadTable(ctx, table.Identifier"+goList(ident)+")",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\trows, err := tbl.Scan().ToArrowTable(ctx)",
			"\tif err != nil {\n\t\tlog.Fatal(err)\n\t}",
			"\tdefer rows.Release()",
			"\tfmt.Printf(\"%d rows\\n\", rows.NumRows())",
			`}`,
		)...)},
		{ID: "pyiceberg-sigv4", Engine: "PyIceberg " + pyicebergVersion + " (SigV4, bucket ARN)", Surface: "iceberg", Language: "python", Code: lines(append(runHeader("#", "count.py",
			`pip install "pyiceberg[pyarrow]==`+pyicebergVersion+`" boto3`,
			"python count.py"),
			pairNote("#", s),
			`import os`,
			``,
			`from pyiceberg.catalog import load_catalog`,
			``,
			`# PyIceberg signs with boto3's credentials: give it floe's key pair.`+pyStore,
			`os.environ["AWS_ACCESS_KEY_ID"] = `+p.id.py,
			`os.environ["AWS_SECRET_ACCESS_KEY"] = `+p.secret.py,
			`catalog = load_catalog("floe", **{`,
			`    "type": "rest",`,
			`    "uri": `+uri+`,`,
			`    "warehouse": `+arn+`,`,
			`    "rest.sigv4-enabled": "true",`,
			`    "rest.signing-name": "s3tables",`,
			`    "rest.signing-region": `+region+`,`,
			`})`,
			`table = catalog.load_table(`+pyIdent+`)`,
			`print(table.scan().to_arrow().num_rows, "rows")`,
		)...)},
		{ID: "duckdb-iceberg-sigv4", Engine: "DuckDB " + duckdbVersion + " (iceberg extension, SigV4)", Surface: "iceberg", Language: "python", Code: lines(append(runHeader("#", "count.py",
			"pip install duckdb=="+duckdbVersion,
			"python count.py"),
			pairNote("#", s),
			`# DuckDB signs with the S3 secret in scope; floe accepts its signing names s3tables and glue.`,
			pyOS+`import duckdb`,
			``,
			`kid, secret = `+p.id.py+`, `+p.secret.py,
			`con = duckdb.connect()`,
			`con.sql("INSTALL aws; INSTALL httpfs; INSTALL iceberg; LOAD iceberg;")`,
			`con.sql(f"CREATE SECRET floe_sigv4 (TYPE s3, KEY_ID '{kid}', SECRET '{secret}', REGION '`+s.Region+`')")`,
			`con.sql("ATTACH '`+s.WarehouseARN+`' AS floe (TYPE iceberg, ENDPOINT '`+in.IcebergURL+`', AUTHORIZATION_TYPE 'sigv4')")`,
			`print(con.sql('SELECT count(*) FROM `+duckName+`').fetchone()[0], "rows")`,
		)...)},
		{ID: "spark-iceberg-sigv4", Engine: "Spark 3.5 (Iceberg " + icebergSparkRuntime + ", SigV4)", Surface: "iceberg", Language: "shell", Code: lines(
			pairNote("#", s),
			`spark-sql \`,
			`  --packages org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:`+icebergSparkRuntime+`,`+icebergAWSBundle+`:`+icebergSparkRuntime+` \`,
			`  --conf spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \`,
			`  --conf spark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog \`,
			`  --conf spark.sql.catalog.floe.type=rest \`,
			`  --conf spark.sql.catalog.floe.uri=`+in.IcebergURL+` \`,
			`  --conf spark.sql.catalog.floe.warehouse=`+s.WarehouseARN+` \`,
			`  --conf spark.sql.catalog.floe.rest.sigv4-enabled=true \`,
			`  --conf spark.sql.catalog.floe.rest.signing-name=s3tables \`,
			`  --conf spark.sql.catalog.floe.rest.signing-region=`+s.Region+` \`,
			`  --conf spark.sql.catalog.floe.rest.access-key-id=`+p.id.shell+` \`,
			`  --conf spark.sql.catalog.floe.rest.secret-access-key=`+p.secret.shell+` \`,
			`  -e 'SELECT count(*) AS rows FROM `+sparkName+`'`,
		)},
	}
}
