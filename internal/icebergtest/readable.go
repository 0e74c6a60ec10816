// Package icebergtest holds test helpers about Iceberg metadata shared by
// the packages whose tests make floe write it (the REST catalog, the
// Iceberg worker).
package icebergtest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
)

// floeMetadataName is how floe names the metadata files it writes
// (NNNNN-<uuid>.metadata.json); a test that plants a file of its own names
// it otherwise.
var floeMetadataName = regexp.MustCompile(`^\d{5,}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.metadata\.json$`)

// CheckReadable parses every table and view metadata file floe wrote under
// root with iceberg-go's own parsers, which validate what floe's tolerant
// reader lets through (refs with non-positive retention made every
// iceberg-go LoadTable of a table fail). Register it with t.Cleanup where
// a test's warehouse is made, so every commit the test makes is checked.
func CheckReadable(t testing.TB, root string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !floeMetadataName.MatchString(d.Name()) {
			return nil // a directory a test removed, or not ours
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(raw, []byte(`"view-uuid"`)) {
			if _, err := view.ParseMetadataBytes(raw); err != nil {
				t.Errorf("iceberg-go cannot read view metadata floe wrote at %s: %v\n%s", p, err, raw)
			}
			return nil
		}
		if _, err := table.ParseMetadataBytes(raw); err != nil {
			t.Errorf("iceberg-go cannot read table metadata floe wrote at %s: %v\n%s", p, err, raw)
		}
		return nil
	})
	if err != nil {
		t.Errorf("walking %s for metadata files: %v", root, err)
	}
	if testing.Verbose() && n > 0 {
		t.Logf("iceberg-go read all %d metadata files floe wrote", n)
	}
}
