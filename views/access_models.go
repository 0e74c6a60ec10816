package views

import "time"

// AccessView is a bucket's, namespace's or table's Access tab: who holds
// what there, granted on the place itself or inherited from a place that
// contains it, and — for its managers — the forms that add and remove
// grants.
type AccessView struct {
	Page
	Bucket, BucketFormat string
	Namespace            string // "" on a bucket's tab
	Table                string // "" on a bucket's or namespace's tab
	Kind                 string // "bucket", "namespace" or "table"
	Place                string // as grants write it: b, b/ns, b/ns/t
	URL                  string // this tab's address; forms post below it
	BackURL              string // the page the tab belongs to
	Rows                 []GrantRow
	// The add form as last sent (a refused one is shown again with its
	// errors).
	GranteeKind, Grantee, Privilege string
	Errors                          FieldErrors
}

// GrantRow is one grant that covers the tab's place.
type GrantRow struct {
	GranteeKind, Grantee string // user, group or apikey; its name or id
	Privilege            string
	// Here: granted on this place (removable on this tab); else From is
	// the place it is inherited from ("*" for everything) and FromURL
	// that place's Access tab ("" for everything).
	Here          bool
	From, FromURL string
	CreatedBy     string
	CreatedAt     time.Time
}

// GranteeKinds and Privileges are the add form's choices.
var (
	GranteeKinds = []string{"user", "group", "apikey"}
	Privileges   = []string{"read", "write", "maintain", "manage"}
)

// privilegeHelp says what each privilege allows, beside the form.
func privilegeHelp(p string) string {
	switch p {
	case "read":
		return "read — list, describe, load, Browse Data; vended keys that read"
	case "write":
		return "write — data and commits; vended keys that write"
	case "maintain":
		return "maintain — run and configure maintenance"
	}
	return "manage — create, drop, rename, and grant"
}
