package lancerest

import (
	"net/url"
	"strconv"
	"strings"
)

// queryValue returns the first value of name in a raw query, still
// percent-encoded, without building a url.Values map on the hot path.
func queryValue(raw, name string) string {
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(kv, "=")
		if k == name {
			return v
		}
	}
	return ""
}

// queryString decodes a query value.
func queryString(c *call, name string) (string, *Error) {
	raw := c.query(name)
	if raw == "" {
		return "", nil
	}
	v, err := url.QueryUnescape(raw)
	if err != nil {
		return "", invalid(name+" is not valid URL encoding", "Percent-encode query values.")
	}
	return v, nil
}

// queryBool parses an optional boolean query flag; absent gives def.
func queryBool(c *call, name string, def bool) (bool, *Error) {
	raw := c.query(name)
	switch strings.ToLower(raw) {
	case "":
		return def, nil
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, invalid(name+" must be true or false", "Pass ?"+name+"=true or ?"+name+"=false.")
}

// queryLimit parses ?limit=; absent or 0 means the catalog's default page
// size, and anything above catalog.MaxPageSize is clamped to it.
func queryLimit(c *call) (int, *Error) {
	raw := c.query("limit")
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, invalid("limit must be a non-negative integer", "Pass ?limit=100, or leave it out for the default page size.")
	}
	return n, nil
}
