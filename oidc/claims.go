package oidc

import (
	"fmt"
	"slices"
	"strings"
)

// Bounds on the groups a token may carry: people and clients belong to
// dozens of groups, not hundreds, and a group name is a short label; a
// claim beyond these is a mistake of the provider, refused rather than
// stored or logged.
const (
	maxGroups    = 256
	maxGroupName = 255
)

// groupsFrom reads the groups claim at a dotted path of claims: a list of
// strings or one string. present is false when the claim is absent (the
// caller may ask userinfo); a claim of another shape is an error.
func groupsFrom(claims map[string]any, path string) (groups []string, present bool, err error) {
	var v any = claims
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if v, ok = m[part]; !ok {
			return nil, false, nil
		}
	}
	var raw []string
	switch g := v.(type) {
	case nil:
		return nil, true, nil
	case string:
		raw = []string{g}
	case []any:
		if len(g) > maxGroups {
			return nil, true, fmt.Errorf("the %s claim lists %d groups, more than the %d floe accepts", path, len(g), maxGroups)
		}
		for _, e := range g {
			s, ok := e.(string)
			if !ok {
				return nil, true, fmt.Errorf("the %s claim is not a list of strings", path)
			}
			raw = append(raw, s)
		}
	default:
		return nil, true, fmt.Errorf("the %s claim is not a list of strings", path)
	}
	for _, s := range raw {
		s = strings.TrimSpace(s)
		if s == "" || slices.Contains(groups, s) {
			continue
		}
		if len(s) > maxGroupName || !printable(s) {
			return nil, true, fmt.Errorf("the %s claim holds a group name that is empty, longer than %d bytes or not printable", path, maxGroupName)
		}
		groups = append(groups, s)
	}
	return groups, true, nil
}

// printable: no control characters (a group name goes into logs and pages).
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// stringClaim is a string claim, or "".
func stringClaim(claims map[string]any, name string) string {
	s, _ := claims[name].(string)
	return s
}
