package handlers

import (
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// The bucket page says what a store without conditional PUT means: a note
// on a managed bucket, a warning on an unmanaged one, nothing otherwise.
func TestStoreRisk(t *testing.T) {
	cases := []struct {
		name        string
		b           catalog.Bucket
		conditional bool
		managed     string
		alert       bool
		says        string
	}{
		{"iceberg", catalog.Bucket{Name: "ice", Format: catalog.FormatIceberg}, false, "", false, ""},
		{"conditional store", catalog.Bucket{Name: "l", Format: catalog.FormatLance}, true, "off", false, ""},
		{"managed", catalog.Bucket{Name: "l", Format: catalog.FormatLance, ManagedVersioning: true}, false, "on", false, "stays on"},
		{"unmanaged", catalog.Bucket{Name: "old", Format: catalog.FormatUnset}, false, "off", true, "managed-versioning old on"},
	}
	for _, c := range cases {
		var v views.BucketView
		storeRisk(&v, c.b, c.conditional)
		if v.Managed != c.managed || v.RiskAlert != c.alert || (c.says == "") != (v.StoreRisk == "") || !strings.Contains(v.StoreRisk, c.says) {
			t.Errorf("%s: managed %q alert %v risk %q", c.name, v.Managed, v.RiskAlert, v.StoreRisk)
		}
	}
}
