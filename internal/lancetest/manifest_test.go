package lancetest_test

import (
	"testing"

	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/lancemeta"
)

// TestManifestDecodes: what the helper writes is a manifest lancemeta (and
// so the commit path) reads back with its version and rows.
func TestManifestDecodes(t *testing.T) {
	m, err := lancemeta.Decode(lancetest.Manifest(7, 12))
	if err != nil || m.Version != 7 || m.Rows() != 12 || m.Fragments != 1 {
		t.Fatalf("Decode = %+v, %v", m, err)
	}
}
