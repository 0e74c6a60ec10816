package views

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxKVPairs bounds a rendered list so one odd result cannot flood a row.
const maxKVPairs = 40

// kvPairs turns a JSON object into sorted key/value pairs, nested objects
// flattened with dots ("after.fragments"). Anything that is not an object
// comes back as one pair with an empty key, so nothing is hidden.
func kvPairs(s string) []KV {
	s = strings.TrimSpace(s)
	if s == "" || s == "{}" || s == "null" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return []KV{{Value: s}}
	}
	var out []KV
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(prefix+k+".", sub)
				continue
			}
			out = append(out, KV{Key: prefix + k, Value: kvValue(v)})
		}
	}
	walk("", m)
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	if len(out) > maxKVPairs {
		out = append(out[:maxKVPairs], KV{Key: "…", Value: fmt.Sprintf("%d more", len(out)-maxKVPairs)})
	}
	return out
}

func kvValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case float64:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", x), "0"), ".")
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// shortID shows the first 12 characters of a long id; the full id is in the
// element's title and in the task's URL.
func shortID(id string) string {
	if len(id) <= 12 {
		return id
	}
	return id[:12] + "…"
}

// SinceQuery is the "?since=" a page's control URL carries: the unix
// milliseconds the page was rendered at ("" for the zero time).
func SinceQuery(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return "?since=" + strconv.FormatInt(t.UnixMilli(), 10)
}
