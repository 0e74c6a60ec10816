package warehouse

import "strings"

// minTableDepth is how many segments below its bucket root a table lies at
// least: <bucket>/<namespace>/<table>. Shallower places are the bucket's
// and its namespaces' own directories, which hold other tables.
const minTableDepth = 2

// CheckTablePlacement holds the rule for where one table's data may live:
// strictly inside its bucket's root and below namespace level, at a path
// an access policy can name literally (checkPolicyLiteral). Whether it
// overlaps another table is the catalog's question (it knows the live
// tables); it answers it with Overlaps on canonical forms.
func CheckTablePlacement(bucketRoot, loc Location) error {
	if err := checkPolicyLiteral(loc); err != nil {
		return err
	}
	rel, ok := loc.Rel(bucketRoot)
	if !ok {
		return errorf(ErrOutside, "location %s is outside the bucket's directory %s; a table's data must live inside its bucket", loc, bucketRoot)
	}
	switch n := depth(rel); {
	case n == 0:
		return errorf(ErrBadLocation, "location %s is the bucket's own directory; give a table directory inside a namespace (%s/<namespace>/<table>)", loc, bucketRoot)
	case n < minTableDepth:
		return errorf(ErrBadLocation, "location %s is a namespace directory; give a table directory inside it (%s/<table>)", loc, loc)
	}
	return nil
}

func depth(rel string) int {
	if rel == "" {
		return 0
	}
	return strings.Count(rel, "/") + 1
}

// SubtreeRange bounds, as canonical strings, every location strictly below
// l: s is below l exactly when lo <= s < hi ('0' sorts right after '/').
// A catalog finds the tables inside l with one indexed range query.
func (l Location) SubtreeRange() (lo, hi string) {
	s := l.String()
	if l.path == "/" {
		return s, "file:///\xff" // everything under the file-system root
	}
	return s + "/", s + "0"
}

// policySpecial are the characters an IAM policy's resource and condition
// strings read as something other than themselves: * and ? are wildcards
// (StringLike and resource ARNs), $ opens a policy variable (${aws:…}).
const policySpecial = "*?$"

// checkPolicyLiteral refuses a location whose object keys an access
// policy could not name literally: keys scoped to "…/a*" would reach
// "…/ab" too. IAM has no escape for * and ? in resource ARNs (${*} and
// ${?} are policy variables that stores need not support), so floe
// refuses such locations where a table is created or registered, on every
// surface, and never vends keys for one.
func checkPolicyLiteral(loc Location) error {
	if loc.Scheme() == "file" {
		return nil // a local warehouse vends nothing
	}
	if i := strings.IndexAny(loc.Path(), policySpecial); i >= 0 {
		return errorf(ErrBadLocation, "location %s contains %q, which access policies read as a wildcard or variable, so keys scoped to it would reach other tables; pick a location without *, ? or $", loc, loc.Path()[i])
	}
	return nil
}
