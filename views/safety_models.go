package views

import "time"

// ProtectionView is the protect control of a bucket, namespace or table
// page: what floe.protected means there, and the button that toggles it.
type ProtectionView struct {
	What      string // "bucket", "namespace" or "table"
	Action    string // the POST target
	Protected bool
	CanManage bool // protecting and lifting it need the manage privilege
}

// DeletedRow is one recently deleted table in its bucket's list.
type DeletedRow struct {
	ID, Namespace, Name, Format string
	DeletedAt, PurgeAt          time.Time
	DeletedBy, Reason           string
	KeepsData                   bool // an Iceberg drop without purge: the hold's end forgets, never deletes
	Protected                   bool // dropped with force while protected: purging needs force too
	UndropURL, PurgeURL         string
}

// RecentlyDeletedView is the bucket page's Recently deleted list.
type RecentlyDeletedView struct {
	Rows      []DeletedRow
	NextHref  string // "" on the last page
	Hold      string // the bucket's hold, as a sentence
	CanManage bool
}

// BucketSafetyView is the bucket page's settings for dropped tables and
// maintenance that deletes data.
type BucketSafetyView struct {
	Action         string
	Hold           string // the bucket's own hold ("7d", "0") or "" for the default
	DefaultHold    string // the catalog's default, for the help text
	Destructive    bool   // cleanup, expiry and orphan removal are scheduled
	DestructiveOwn bool   // the bucket has its own setting (else every bucket's)
	CanManage      bool
	Errors         FieldErrors
}

// DeletedBucketRow is a deleted bucket that still holds recently deleted
// tables, on the buckets page.
type DeletedBucketRow struct {
	Name, Format        string
	DeletedAt           time.Time
	Tables              int
	UndropURL, PurgeURL string
}

// orDash is s, or a dash for nothing.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
