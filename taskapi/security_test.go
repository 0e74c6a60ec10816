package taskapi

// The security regression suite for the Lance maintenance task API (issue 15).

import (
	"net/http"
	"testing"
)

// TestSecurity_DuplicateJSONKeyRefused: a task body naming a parameter twice
// silently took the last value.
func TestSecurity_DuplicateJSONKeyRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	r := e.do(call{method: "POST", path: "/table/ns$tbl/compact", body: `{"compaction_mode":"reencode","compaction_mode":"try_binary_copy"}`})
	r.wantError(t, http.StatusBadRequest, "InvalidInput", 13)
}
