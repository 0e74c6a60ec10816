package s3tables

import (
	"fmt"
	"slices"

	"github.com/floe/floe/catalog"
)

// checkServed refuses a format whose catalog floe does not run: what the
// API would make could not be reached by any engine.
func (s *Server) checkServed(f catalog.Format, what string) error {
	if !slices.Contains(s.cfg.FormatsOff, f) {
		return nil
	}
	name, flag, other := "Iceberg REST", "--iceberg", catalog.FormatLance
	if f == catalog.FormatLance {
		name, flag, other = "Lance REST", "--lance", catalog.FormatIceberg
	}
	return badRequest("format", fmt.Sprintf("floe's %s catalog is not running, so %s of format %s would have no endpoint; start floe serve with %s ADDR, or use format %s",
		name, what, f, flag, other))
}
