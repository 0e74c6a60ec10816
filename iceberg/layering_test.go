package iceberg

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering: the Iceberg library imports no net/http (it is called by
// the REST surface and the console, never the other way round), and no
// production file of the module imports net/http/httptest (the console
// once created tables through an in-process REST request).
func TestLayering(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || strings.HasPrefix(n, ".") && n != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		lib := filepath.Dir(path) == filepath.Join("..", "iceberg")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "net/http/httptest" {
				t.Errorf("%s: production code imports net/http/httptest", path)
			}
			if lib && (p == "net/http" || strings.HasPrefix(p, "github.com/floe/floe/icebergrest")) {
				t.Errorf("%s: the Iceberg library imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
