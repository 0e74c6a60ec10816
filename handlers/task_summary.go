package handlers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// resultSummary turns a Lance job's result (the worker's before/after
// figures) into one line people read: "12 → 1 fragments, 5.3 → 5.1 MiB,
// 0 versions removed". A job that committed nothing (the version did not
// move) says "nothing to do". ok is false when the result carries no
// before/after figures (another worker, a failure); the caller then shows
// the worker's own summary.
func resultSummary(result map[string]any) (line string, ok bool) {
	if result["ran"] == "dry_run" {
		return dryRunSummary(result)
	}
	before, b1 := result["before"].(map[string]any)
	after, b2 := result["after"].(map[string]any)
	if !b1 || !b2 {
		return "", false
	}
	num := func(m map[string]any, k string) (int64, bool) {
		switch v := m[k].(type) {
		case json.Number:
			n, err := v.Int64()
			return n, err == nil
		case float64:
			return int64(v), true
		case string:
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	vb, okb := num(before, "version")
	va, oka := num(after, "version")
	if okb && oka && vb == va {
		return "nothing to do", true
	}
	var parts []string
	if b, ok1 := num(before, "fragments"); ok1 {
		if a, ok2 := num(after, "fragments"); ok2 {
			parts = append(parts, fmt.Sprintf("%s → %s fragments", groupDigits(b), groupDigits(a)))
		}
	}
	if b, ok1 := num(before, "bytes"); ok1 {
		if a, ok2 := num(after, "bytes"); ok2 {
			parts = append(parts, bytesChange(b, a))
		}
	}
	if b, ok1 := num(before, "unindexed_rows"); ok1 {
		if a, ok2 := num(after, "unindexed_rows"); ok2 && a != b {
			parts = append(parts, fmt.Sprintf("unindexed rows %s → %s", groupDigits(b), groupDigits(a)))
		}
	}
	if b, ok1 := num(before, "indices"); ok1 {
		if a, ok2 := num(after, "indices"); ok2 && a != b {
			parts = append(parts, fmt.Sprintf("%s → %s indices", groupDigits(b), groupDigits(a)))
		}
	}
	removed, okr := num(result, "versions_removed")
	if !okr {
		if b, ok1 := num(before, "versions"); ok1 {
			if a, ok2 := num(after, "versions"); ok2 {
				// a job that commits adds one version of its own
				removed, okr = max(0, b+1-a), true
			}
		}
	}
	if okr {
		parts = append(parts, fmt.Sprintf("%s versions removed", groupDigits(removed)))
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, ", "), true
}

// bytesChange: "5.3 → 5.1 MiB" when both sides share a unit, else both in full.
func bytesChange(b, a int64) string {
	hb, ha := humanBytes(b), humanBytes(a)
	nb, ub, _ := strings.Cut(hb, " ")
	na, ua, _ := strings.Cut(ha, " ")
	if ub == ua {
		return nb + " → " + na + " " + ua
	}
	return hb + " → " + ha
}

// dryRunSummary is a cleanup dry run's line: what the real run would
// delete ("dry run: would remove 4 versions and delete 12 files (1.2 MiB);
// nothing was deleted"). Its version did not move, but "nothing to do"
// would be wrong.
func dryRunSummary(result map[string]any) (string, bool) {
	count := func(k string) (int64, bool) {
		switch v := result[k].(type) {
		case []any:
			return int64(len(v)), true
		case json.Number:
			n, err := v.Int64()
			return n, err == nil
		case float64:
			return int64(v), true
		case string:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n, true
			}
			var list []any
			if json.Unmarshal([]byte(v), &list) == nil {
				return int64(len(list)), true
			}
		}
		return 0, false
	}
	versions, ok1 := count("versions_would_remove")
	files, ok2 := count("files_would_delete_count")
	bytes, ok3 := count("bytes_would_delete")
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return fmt.Sprintf("dry run: would remove %s versions and delete %s files (%s); nothing was deleted",
		groupDigits(versions), groupDigits(files), humanBytes(bytes)), true
}
