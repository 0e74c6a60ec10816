package plugin

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestConsumersImportNoProtobuf keeps the generated protobuf types behind the
// plugin's edge: the console's packages see the plugin's own Go types only.
// Test files may still drive fake workers with pluginpb.
func TestConsumersImportNoProtobuf(t *testing.T) {
	const pb = "github.com/floe/floe/plugin/pluginpb"
	for _, dir := range []string{"handlers", "preview", "observe", "web", "views", "tasks", "taskapi"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files found (%v); was the package moved?", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == pb {
					t.Errorf("%s imports %s; convert in plugin's edge files and use the plugin's own types", name, pb)
				}
			}
		}
	}
}
