package oidc

import (
	"slices"

	"github.com/floe/floe/catalog"
)

// Rights is the rule from a principal's provider groups to a role, beside
// grants (to users and groups): nothing is open by accident, so a member of
// neither group gets no role, and unless it or one of its groups holds a
// grant (Config.Granted) it is refused — a console user after signing in
// (the user row still appears, with its groups), a bearer token with 403.
// With a grant, the grants alone decide its requests.
//
//   - a member of AdminGroup (--oidc-admin-group) is an admin in the
//     console, and its tokens read and write every bucket (as a readwrite
//     API key does);
//   - a member of ReadonlyGroup (--oidc-readonly-group) reads: the
//     console's read-only role, and tokens that read every bucket.
//
// AdminGroup wins when a principal is in both.
type Rights struct {
	AdminGroup, ReadonlyGroup string
}

// ConsoleRole is the console role of a user in groups; "" is none.
func (r Rights) ConsoleRole(groups []string) catalog.Role {
	switch {
	case r.AdminGroup != "" && slices.Contains(groups, r.AdminGroup):
		return catalog.RoleAdmin
	case r.ReadonlyGroup != "" && slices.Contains(groups, r.ReadonlyGroup):
		return catalog.RoleReadonly
	}
	return ""
}

// TokenRole is the API-key role a bearer token in groups acts with; "" is
// none.
func (r Rights) TokenRole(groups []string) catalog.Role {
	switch r.ConsoleRole(groups) {
	case catalog.RoleAdmin:
		return catalog.RoleReadWrite
	case catalog.RoleReadonly:
		return catalog.RoleReadonly
	}
	return ""
}

// describe says the rule for a refusal's sentence.
func (r Rights) describe() string {
	const grants = "; a grant to the user or one of its groups (floe grant, or a place's Access tab) also gives rights"
	switch {
	case r.AdminGroup != "" && r.ReadonlyGroup != "":
		return "floe gives rights to members of " + quote(r.AdminGroup) + " (admin) and " + quote(r.ReadonlyGroup) + " (read-only)" + grants
	case r.AdminGroup != "":
		return "floe gives rights only to members of " + quote(r.AdminGroup) + grants
	case r.ReadonlyGroup != "":
		return "floe gives rights only to members of " + quote(r.ReadonlyGroup) + " (read-only)" + grants
	}
	return "floe gives no group rights (floe serve --oidc-admin-group or --oidc-readonly-group), and the user and its groups hold no grant"
}

func quote(s string) string { return `"` + s + `"` }
