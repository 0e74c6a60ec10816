package lancemeta

import (
	"os"
	"testing"
)

// FuzzDecodeManifest feeds arbitrary files to the manifest reader: it must
// answer a Manifest or an error, within MaxManifestBytes, never panic.
func FuzzDecodeManifest(f *testing.F) {
	for _, name := range []string{"testdata/v3.manifest", "testdata/indexed.manifest"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("LANC"))
	f.Fuzz(func(t *testing.T, file []byte) {
		m, err := Decode(file)
		if err == nil && m.Rows() > m.PhysicalRow {
			t.Fatalf("rows %d past physical rows %d", m.Rows(), m.PhysicalRow)
		}
	})
}
