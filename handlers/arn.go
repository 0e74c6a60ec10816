package handlers

import "strings"

// displayARN shows a catalog ARN ("arn:floe:s3tables:<region>:<account>:…")
// in the form the S3 Tables API accepts and returns
// ("arn:aws:s3tables:<--s3tables-region>:<--s3tables-account>:…"), so an
// operator can paste it into the AWS CLI. Without a configured region the
// catalog's ARN is shown as stored.
func (h *Handlers) displayARN(arn string) string {
	if h.surfaces.S3TablesRegion == "" || h.surfaces.S3TablesAccount == "" {
		return arn
	}
	parts := strings.SplitN(arn, ":", 6) // arn, partition, service, region, account, resource
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "s3tables" {
		return arn
	}
	return "arn:aws:s3tables:" + h.surfaces.S3TablesRegion + ":" + h.surfaces.S3TablesAccount + ":" + parts[5]
}
