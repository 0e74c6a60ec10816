package handlers

import (
	"fmt"
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
	// OwnKeys: floe vends its own store keys (--vend-credentials static).
	// They write and delete and cannot be scoped, so floe hands them only to
	// callers who may write the table; a read-only key gets none
	// (warehouse.WithheldStatic).
	OwnKeys bool
}

// ReaderKeysNote says plainly what storage keys a read-only caller gets
// under --vend-credentials static; "" when every caller gets what it needs.
func (st *SnippetStore) ReaderKeysNote() string {
	if st == nil || !st.OwnKeys {
		return ""
	}
	return "Storage keys: this floe vends its own store keys (--vend-credentials static), which can write and delete, so it hands them only to callers who may write this table. " +
		"A read-only key, such as the one this tab makes, gets no storage keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to keys of your own that read the store. " +
		"Storage keys for readers need --vend-credentials sts, whose keys are scoped to reading the one table."
}

// commentPrefix is the line comment of a snippet's language.
var commentPrefix = map[string]string{"js": "//", "go": "//", "python": "#", "shell": "#", "sql": "--"}

// withStore puts the storage settings at the top of each snippet: a comment
// saying where the files are and where the keys come from (DuckDB's
// snippets make their own S3 secret: duckdbStart).
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
		switch {
		case st.OwnKeys:
			lines = append(lines, c+" floe hands out the endpoint and region with each table, and its own store keys only to a key that may write",
				c+" (--vend-credentials static). With a read-only key, bring your own: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
				c+" in the environment (storage keys for readers need --vend-credentials sts).")
		case st.Vended:
			lines = append(lines, c+" floe hands out the endpoint, region and keys with each table: nothing to configure.")
		default:
			lines = append(lines, c+" floe hands out the endpoint and region with each table; bring your own keys:",
				c+" AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (or an AWS profile).")
		}
		snips[i].Code = strings.Join(append(lines, "", s.Code), "\n")
	}
	return snips
}
