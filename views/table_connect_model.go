package views

// TableConnectView is a table's Connect tab.
type TableConnectView struct {
	Page
	Bucket       string
	BucketFormat string
	Namespace    string
	Name         string
	Format       string
	KeyEnv       string // the variable snippets read a key from when none is written in
	KeyName      string // the read-only key just made, written into the snippets
	KeyShown     bool
	Snippets     []Snippet
	// StorageNote says what storage keys a reader gets when that is less
	// than the snippets' header suggests ("" says nothing).
	StorageNote string
}
