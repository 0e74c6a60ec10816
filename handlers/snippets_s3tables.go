package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/views"
)

// Placeholders for the SigV4 pair of an API key, shown once at creation.
const (
	accessKeyIDPlaceholder     = "<ACCESS_KEY_ID>"
	secretAccessKeyPlaceholder = "<SECRET_ACCESS_KEY>"
)

// s3tablesURL is the S3 Tables control API base URL; "" when off.
func (h *Handlers) s3tablesURL(r *http.Request) string {
	if h.surfaces.S3Tables == "" {
		return ""
	}
	return "http://" + clientHost(h.surfaces.S3Tables, r)
}

// s3tablesSnippets are the AWS tools' ways in: the CLI and boto3, signing
// with an API key's access key pair. None when the surface is off.
func (h *Handlers) s3tablesSnippets(r *http.Request) []views.Snippet {
	uri := h.s3tablesURL(r)
	if uri == "" {
		return nil
	}
	region := h.surfaces.S3TablesRegion
	return []views.Snippet{
		{ID: "aws-cli-s3tables", Engine: "AWS CLI (S3 Tables)", Surface: "s3tables", Language: "shell", Code: strings.Join([]string{
			`export AWS_ACCESS_KEY_ID=` + accessKeyIDPlaceholder,
			`export AWS_SECRET_ACCESS_KEY=` + secretAccessKeyPlaceholder,
			`export AWS_DEFAULT_REGION=` + region,
			`aws s3tables list-table-buckets --endpoint-url ` + uri,
		}, "\n")},
		{ID: "boto3-s3tables", Engine: "boto3 (S3 Tables)", Surface: "s3tables", Language: "python", Code: strings.Join([]string{
			`import boto3`,
			``,
			`s3t = boto3.client("s3tables", endpoint_url="` + uri + `", region_name="` + region + `",`,
			`    aws_access_key_id="` + accessKeyIDPlaceholder + `", aws_secret_access_key="` + secretAccessKeyPlaceholder + `")`,
			`print(s3t.list_table_buckets()["tableBuckets"])`,
		}, "\n")},
	}
}
