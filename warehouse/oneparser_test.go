package warehouse

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// notLocations are production uses of a URI scheme string that do not parse
// a storage location, each with its reason.
var notLocations = map[string]string{
	// GET /v1/config?warehouse=s3://<bucket> names a bucket (a catalog),
	// as Iceberg clients spell it; it never reaches storage.
	"icebergrest/config_get.go:s3://": "Iceberg warehouse parameter names a bucket",
	// --db tells a PostgreSQL URL from a SQLite file; neither is table storage.
	"persist/dialect_postgres.go:postgres://":   "database URL, not a table location",
	"persist/dialect_postgres.go:postgresql://": "database URL, not a table location",
}

// TestOneLocationParser holds issue 10's rule that one parser exists: no
// production file outside warehouse/ takes a location apart by its scheme
// (a string call such as strings.HasPrefix(loc, "file://")) or builds one
// with url.URL{Scheme: "file"}. Call warehouse.Parse instead.
func TestOneLocationParser(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	schemes := []string{"file:", "s3:", "://"}
	var found []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch rel {
			case "warehouse", "node_modules", ".git", "e2e", "bench", "test":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, "_templ.go") || strings.HasSuffix(p, ".pb.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok || pkg.Name != "strings" {
					return true
				}
				for _, a := range n.Args {
					lit, ok := a.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					for _, sch := range schemes {
						key := filepath.ToSlash(rel) + ":" + s
						if strings.Contains(strings.ToLower(s), sch) && notLocations[key] == "" {
							found = append(found, rel+": strings."+sel.Sel.Name+"(…, "+lit.Value+")")
							break
						}
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Scheme" {
					if lit, ok := n.Value.(*ast.BasicLit); ok && strings.Contains(lit.Value, "file") {
						found = append(found, rel+": url.URL{Scheme: "+lit.Value+"}")
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("location parsed outside the warehouse package: %s", f)
	}
}
