package handlers

import "github.com/floe/floe/catalog"

// displayARN shows a catalog ARN in the form the S3 Tables API accepts and
// returns (catalog.DisplayARN with --s3tables-region and
// --s3tables-account), so an operator can paste it into the AWS CLI.
// Without a configured region the catalog's ARN is shown as stored.
func (h *Handlers) displayARN(arn string) string {
	return catalog.DisplayARN(arn, h.surfaces.S3TablesRegion, h.surfaces.S3TablesAccount)
}
