package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/views"
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
			`# Signs with an API key's access key pair from $` + snippetAccessKeyEnv + ` and $` + snippetSecretEnv + ` (floe token create prints one).`,
			`export AWS_ACCESS_KEY_ID="$` + snippetAccessKeyEnv + `"`,
			`export AWS_SECRET_ACCESS_KEY="$` + snippetSecretEnv + `"`,
			`export AWS_DEFAULT_REGION=` + region,
			`aws s3tables list-table-buckets --endpoint-url ` + uri,
		}, "\n")},
		{ID: "boto3-s3tables", Engine: "boto3 (S3 Tables)", Surface: "s3tables", Language: "python", Code: strings.Join([]string{
			`# Signs with an API key's access key pair from $` + snippetAccessKeyEnv + ` and $` + snippetSecretEnv + ` (floe token create prints one).`,
			`import os`,
			``,
			`import boto3`,
			``,
			`s3t = boto3.client("s3tables", endpoint_url="` + uri + `", region_name="` + region + `",`,
			`    aws_access_key_id=os.environ["` + snippetAccessKeyEnv + `"], aws_secret_access_key=os.environ["` + snippetSecretEnv + `"])`,
			`print(s3t.list_table_buckets()["tableBuckets"])`,
		}, "\n")},
	}
}
