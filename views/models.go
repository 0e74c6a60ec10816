// Package views holds the console's templ components and the plain structs
// they render. Components never fetch anything: handlers fill these structs.
package views

//go:generate sh -c "cd .. && go tool templ generate"

import (
	"net/url"
	"time"
)

// Page is what every full page needs for its layout.
type Page struct {
	Title  string
	Nav    string // sidebar entry to mark current: buckets, connect, api-keys, workers, jobs
	User   string
	Role   string
	Groups []string // the identity provider's groups of a user signed in through it
	// CanWrite: the user manages the place the page shows (everything for
	// pages outside a bucket), or holds what the page's own controls need
	// (maintain on the Maintenance tab); false: no write control is
	// rendered.
	CanWrite bool
	// StorageAlert, when set, is why the warehouse's store does not answer;
	// every page shows it as a banner until the store is back.
	StorageAlert string
	Flash        string // one-time confirmation of the write that redirected here
	// Activity: the user may read the audit trail (the Activity page and
	// tables' Activity tabs).
	Activity bool
	// Users: the user manages everything (an admin's grant), so the Users
	// page is theirs.
	Users bool
}

// FieldErrors maps a form field name to the message shown next to it.
type FieldErrors map[string]string

// Crumb is one breadcrumb link; the last crumb is the current page.
type Crumb struct {
	Label  string
	Href   string
	Format string
	Badge  bool // show Format as a badge after the label (unset included)
}

// Snippet is one ready-to-copy connection example.
type Snippet struct {
	ID       string // unique on the page; used by the copy button
	Engine   string // "LanceDB (JavaScript)"
	Surface  string // "lance" or "iceberg"
	Language string // "js", "python", "sql", "shell"
	Code     string
}

// FormatOption is one format card in the create-bucket form.
type FormatOption struct {
	Value    string // "LANCE" or "ICEBERG"
	Label    string
	Engines  string
	Disabled bool
	Reason   string // why it is disabled
	Checked  bool
}

// LoginForm is the sign-in page.
type LoginForm struct {
	Username string
	Next     string // local path to return to after signing in
	Error    string
	// SSOLabel names the identity provider of the "Sign in with …" button;
	// "" shows no button (no provider configured).
	SSOLabel string
}

// SSOHref is where the "Sign in with …" button goes: the provider's
// sign-in, back to Next afterwards.
func (f LoginForm) SSOHref() string {
	if f.Next == "" {
		return "/login/oidc"
	}
	return "/login/oidc?next=" + url.QueryEscape(f.Next)
}

// BucketRow is one line of the buckets list.
type BucketRow struct {
	Name       string
	Format     string
	Endpoint   string // "" when the surface for this format is off
	TableCount int
	CreatedAt  time.Time
	Health     *BucketHealth // nil: no health service
}

// CreateBucketForm is the create-bucket dialog's form.
type CreateBucketForm struct {
	Name    string
	Format  string
	Formats []FormatOption
	Hint    EndpointHint
	Errors  FieldErrors
	Open    bool // render the dialog already open (a failed plain POST)
}

// EndpointHint tells the user where clients will find the bucket.
type EndpointHint struct {
	Name     string
	Format   string
	Endpoint string
	Message  string // shown when no endpoint can be given
}

// BucketsView is the /buckets page.
type BucketsView struct {
	Page
	Buckets []BucketRow
	// HealthShown: the Rows, Size and Need attention columns are shown.
	HealthShown         bool
	FirstHref, NextHref string // keyset pages (?after=NAME, or a position when sorted); "" = none
	Sort                SortHeaders
	Form                CreateBucketForm
	NoneServed          bool // neither catalog surface is running
	// DeletedBuckets are deleted buckets still holding recently deleted
	// tables (their names stay taken).
	DeletedBuckets []DeletedBucketRow
}

// NamespaceRow is one namespace in a list.
type NamespaceRow struct {
	Name      string // dotted
	Depth     int
	CreatedAt time.Time
}

// BucketView is /buckets/{bucket}.
type BucketView struct {
	Page
	Name       string
	Format     string
	ARN        string
	CreatedAt  time.Time
	TableCount int
	Namespaces []NamespaceRow
	NewNS      string
	Errors     FieldErrors
	Snippets   []Snippet
	Notice     string // error sentence shown at the top (e.g. 409 on delete)
	Protection ProtectionView
	Deleted    RecentlyDeletedView
	Safety     BucketSafetyView
	CanManage  bool       // may force past protection
	Trend      *TrendView // the tables' total rows and bytes over time; nil without an observation store
	// Managed is "on" or "off" for a bucket that may hold Lance tables
	// (managed versioning), "" for an Iceberg one.
	Managed string
	// StoreRisk is the sentence about a warehouse store that ignores
	// If-None-Match (--s3-conditional-put absent); RiskAlert says it
	// warns (an unmanaged bucket there can lose commits) rather than notes.
	StoreRisk string
	RiskAlert bool
	// CanDrop: the user manages everything, which deleting a bucket needs
	// (CanWrite, managing the bucket, creates namespaces in it).
	CanDrop bool
}

// TableRow is one table in a namespace listing.
type TableRow struct {
	Name      string
	Format    string
	Rows      string // formatted, or "—" when unknown
	State     string
	CreatedAt time.Time
	TableListExtra
}

// PageLink is one link of a pager.
type PageLink struct {
	Number  int
	Href    string
	Current bool
}

// PageSizeLink is one choice of a list's rows a page.
type PageSizeLink struct {
	Rows    int
	Href    string
	Current bool
}

// NamespaceView is /buckets/{bucket}/namespaces/{ns}.
type NamespaceView struct {
	Page
	Bucket       string
	BucketFormat string
	Namespace    string
	Children     []NamespaceRow
	Tables       []TableRow
	Views        []ViewRow // Iceberg views, first page
	Total        int
	Query        string
	QueryStart   bool // the filter is short enough to match names' starts only
	Pages        []PageLink
	// Keyset paging: links that survive a reload and cost the same on
	// any page. FirstHref is "" on the first page, NextHref on the last.
	FirstHref, NextHref string
	After               string // the name the page starts after
	// Attention: only tables in attention or needing maintenance are
	// listed; AttentionHref/AllHref switch the filter.
	Attention, HealthShown bool
	AttentionHref, AllHref string
	CanDeclare             bool // Lance or unset bucket
	// Sort links the column headers; Sorted is set when the list is in
	// another order than by name (the After cursor is then a position in
	// that order). SortKey and SortDesc are kept by the filter form.
	Sort       SortHeaders
	Sorted     bool
	SortKey    string
	SortDesc   bool
	BulkURL    string // where the selected tables' bulk action posts; "" for readers
	Properties PropertiesView
	Here       string // this list page's own link (the bulk action returns to it)
	// LiveURL is the list's live socket: it reloads the list when a job
	// on a listed table finishes ("" without workers or health).
	LiveURL string
	// PageSizes offer the list's page sizes (?per=); Per is the current one
	// when it is not the default, kept by the filter form. Snapshot says a
	// longer page than the default does not update live.
	PageSizes  []PageSizeLink
	Per        int
	Snapshot   bool
	NewTable   string
	Errors     FieldErrors
	Notice     string
	Protection ProtectionView
	CanManage  bool // may force past protection
}

// TableView is the table page.
type TableView struct {
	Page
	// RenderedAt is when the page's figures were read: the controls it
	// loads carry it to their live socket (since=).
	RenderedAt   time.Time
	Health       *HealthPanelView // nil: no health service
	Bucket       string
	BucketFormat string
	Namespace    string
	Name         string
	ID           string
	ARN          string
	Format       string
	Location     string
	State        string
	Version      string // Lance: the observed version (storage's before any observation); "" before the first write
	UpdatingTo   string // Lance: the newer version on storage a worker is observing now; "" when up to date
	CreatedAt    time.Time
	ModifiedAt   time.Time
	Rows         string
	ObservedAt   time.Time
	WorkerID     string
	Errors       FieldErrors
	Notice       string
	Iceberg      IcebergPanel   // ICEBERG tables only
	Observed     *ObservedView  // LANCE tables: the last observation; nil without an observation store
	Trend        *TrendView     // rows and bytes over time; nil without an observation store
	Refs         *LanceRefsView // LANCE tables: tags and branches
	// Properties are the table's (an Iceberg table's from its metadata);
	// nil when they cannot be read.
	Properties *PropertiesView
	Protection ProtectionView
	// Hold is how long a drop keeps the table recently deleted ("7d";
	// "0": a drop deletes the data at once).
	Hold      string
	CanManage bool // may force past protection
}

// ConnectView is /connect.
type ConnectView struct {
	Page
	Bucket     string
	Buckets    []string
	Snippets   []Snippet
	NoneServed bool
	// NoBucketOf names the served formats without a bucket yet, whose
	// snippets would have nothing real to name.
	NoBucketOf []string
}

// APIKeyRow is one key in the list.
type APIKeyRow struct {
	ID          string
	AccessKeyID string // SigV4 access key id; "" for keys made before S3 Tables
	Name        string
	Role        string
	Bucket      string
	CreatedAt   time.Time
	LastUsedAt  time.Time
	ExpiresAt   time.Time // zero: never
	Expired     bool      // ExpiresAt has passed: every surface refuses the key
	System      string    // a badge label when floe made the key for itself ("" for people's keys)
	Warning     string    // the revoke confirmation: what stops working
}

// APIKeysView is /api-keys.
type APIKeysView struct {
	Page
	Keys []APIKeyRow // keys people made
	Sort SortHeaders // Name, Created, Used
	// SystemKeys are the keys floe made for itself (bundled workers, the
	// demo seeder, keys minted for jobs), listed apart and folded away.
	SystemKeys []APIKeyRow
	Buckets    []string
	Name       string
	Role       string
	Bucket     string
	ExpiresIn  string // the create form's lifetime, as typed
	Errors     FieldErrors
	Secret     string // shown once, right after creation
	Created    string // name of the key just created
	// CreatedExpires is when the key just created expires (zero: never).
	CreatedExpires time.Time
	// The new key's SigV4 pair for the S3 Tables API, shown once with Secret.
	AccessKeyID, SecretAccessKey string
}

// EmptyView is a page that has nothing to show yet and says why.
type EmptyView struct {
	Page
	Heading string
	Message string
	TestID  string
}

// ErrorView is an error page.
type ErrorView struct {
	Page
	Status    int
	Heading   string
	Message   string
	Back      string
	BackLabel string
}

// SortHeader is one sortable column's header: a link to the list in its
// order (Href "" when the column cannot be sorted here).
type SortHeader struct {
	Key, Label    string
	Title         string // what the column counts, when its label is short
	Href          string
	Current, Desc bool // the list is sorted by this column, descending
}

// AriaSort is the header's aria-sort value.
func (h SortHeader) AriaSort() string {
	switch {
	case !h.Current:
		return "none"
	case h.Desc:
		return "descending"
	}
	return "ascending"
}

// SortHeaders are the sortable columns of a table list.
type SortHeaders struct {
	Name, Rows, Size, Changed, Health SortHeader
	Tables, Created, Used             SortHeader // buckets and API keys
}

// BulkConfirmView is the page that asks before a bulk action deletes data.
type BulkConfirmView struct {
	Page
	Action, Question, Button string
	URL, Back                string
	Tables                   []BulkConfirmRow
}

// BulkConfirmRow is one ticked table and what the action does to it.
type BulkConfirmRow struct {
	Name, Format, Detail string
	Deletes              bool
}

// JobSortHeaders are the jobs list's sortable columns.
type JobSortHeaders struct {
	Type, Created, Updated SortHeader
}
