package views

import (
	"net/url"
	"time"
)

// ViewRow is one Iceberg view in the namespace page's Views list.
type ViewRow struct {
	Name     string
	Dialects string // "spark, trino" for the current version
	Versions int
	Error    string // the metadata file could not be read: a sentence instead of the figures
}

// ViewPageView is the page of one Iceberg view.
type ViewPageView struct {
	Page
	Bucket           string
	BucketFormat     string
	Namespace        string
	Name             string
	Location         string
	MetadataLocation string
	UUID             string
	CreatedAt        time.Time
	ModifiedAt       time.Time
	Error            string // the metadata could not be read; nothing below is filled
	Current          int64
	Columns          []IcebergColumn
	Versions         []ViewVersionRow // newest first
	Properties       []IcebergProperty
}

// ViewVersionRow is one version of a view with its SQL per dialect.
type ViewVersionRow struct {
	ID               int64
	Time             time.Time
	SchemaID         int
	Current          bool
	DefaultNamespace string
	Engine           string // summary engine-name (and version) when the writer recorded it
	SQL              []ViewSQL
}

// ViewSQL is the SQL text of a version in one dialect.
type ViewSQL struct{ Dialect, Text string }

// ViewURL is the address of a view's page.
func ViewURL(b, ns, v string) string {
	return NamespaceURL(b, ns) + "/views/" + url.PathEscape(v)
}
