package taskapi

import (
	"strings"
	"testing"
)

// TestIssue23Item7InvalidUTF8AnywhereRefused: a body with invalid UTF-8 in
// a field the task ignores was accepted (encoding/json never decodes it,
// and would have turned it into U+FFFD if it had). It is a 400 now,
// wherever in the body it sits.
func TestIssue23Item7InvalidUTF8AnywhereRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, body := range []string{
		"{\"unknown_field\":\"\xff\xfe\"}",
		"{\"target_rows_per_fragment\":1000,\"x\":[\"ok\",\"\xc3\"]}",
		"{\"\xff\":1}",
	} {
		e.do(call{method: "POST", path: "/table/ns$tbl/compact", body: body}).wantError(t, 400, "InvalidInput", 13)
	}
	e.submit("compact", `{"comment":"é is fine"}`)
}

// TestIssue23Item7MarkersNotIssuedRefused: ListLanceTasks refuses markers
// it did not issue, the ones the attack sent to the other surfaces
// included.
func TestIssue23Item7MarkersNotIssuedRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.submit("compact", "")
	for _, m := range []string{"zzzz", "%00", strings.Repeat("A", 100_000)} {
		e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact&marker=" + m}).wantError(t, 400, "InvalidInput", 13)
	}
}
