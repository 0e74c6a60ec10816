package handlers

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/floe/floe/views"
)

// SnippetStore describes an s3:// warehouse to the Connect snippets: what a
// client must know, beyond the catalog's address, to read the table files.
type SnippetStore struct {
	Endpoint  string // "http://127.0.0.1:8333"; "" = AWS S3
	Region    string
	PathStyle bool
	// Vended is true when floe hands clients keys with each table
	// (--vend-credentials static or sts); false means clients bring their own.
	Vended bool
}

// Placeholders for the keys a client brings when floe vends none.
const (
	accessKeyPlaceholder = "<AWS_ACCESS_KEY_ID>"
	secretKeyPlaceholder = "<AWS_SECRET_ACCESS_KEY>"
)

// commentPrefix is the line comment of a snippet's language.
var commentPrefix = map[string]string{"js": "//", "go": "//", "python": "#", "shell": "#", "sql": "--"}

// withStore puts the storage settings at the top of each snippet: a comment
// saying where the files are and where the keys come from, and for DuckDB
// (which reads S3 through its own secrets, not the catalog's config) the
// S3 secret when floe hands out no keys.
func withStore(snips []views.Snippet, st *SnippetStore) []views.Snippet {
	where := "AWS S3"
	if st.Endpoint != "" {
		where = "the S3 store at " + st.Endpoint
	}
	style := ""
	if st.PathStyle {
		style = ", path-style"
	}
	for i, s := range snips {
		c := commentPrefix[s.Language]
		lines := []string{fmt.Sprintf("%s Table files live in %s (region %s%s).", c, where, st.Region, style)}
		if st.Vended {
			lines = append(lines, c+" floe hands out the endpoint, region and keys with each table: nothing to configure.")
		} else {
			lines = append(lines, c+" floe hands out the endpoint and region with each table; bring your own keys:",
				c+" AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (or an AWS profile).")
			if s.Language == "sql" {
				lines = append(lines, duckdbSecret(st))
			}
		}
		snips[i].Code = strings.Join(append(lines, "", s.Code), "\n")
	}
	return snips
}

// duckdbSecret is DuckDB's S3 secret for the store.
func duckdbSecret(st *SnippetStore) string {
	opts := fmt.Sprintf("TYPE s3, KEY_ID '%s', SECRET '%s', REGION '%s'", accessKeyPlaceholder, secretKeyPlaceholder, st.Region)
	if u, err := url.Parse(st.Endpoint); err == nil && u.Host != "" {
		opts += fmt.Sprintf(", ENDPOINT '%s'", u.Host)
		if u.Scheme == "http" {
			opts += ", USE_SSL false"
		}
	}
	if st.PathStyle {
		opts += ", URL_STYLE 'path'"
	}
	return "CREATE SECRET floe_s3 (" + opts + ");"
}
