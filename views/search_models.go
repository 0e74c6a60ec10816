package views

// SearchView is the search page and the results list under the search box.
type SearchView struct {
	Page
	Query string
	Hits  []SearchHit
	More  bool   // there are hits beyond these; the page link shows more
	Note  string // why nothing can match (a character no name holds)
	// AllHref is the full results page for the query (the list's last link).
	AllHref string
}

// SearchHit is one matching bucket, namespace, table or view.
type SearchHit struct {
	Kind   string // bucket, namespace, table, view
	Name   string
	Where  string // the bucket / namespace it sits in; "" for a bucket
	Href   string
	Format string
	Badge  bool // show the format badge (not for namespaces)
}
