package warehouse

import "strings"

// minTableDepth is how many segments below its bucket root a table lies at
// least: <bucket>/<namespace>/<table>. Shallower places are the bucket's
// and its namespaces' own directories, which hold other tables.
const minTableDepth = 2

// CheckTablePlacement holds the rule for where one table's data may live:
// strictly inside its bucket's root and below namespace level. Whether it
// overlaps another table is the catalog's question (it knows the live
// tables); it answers it with Overlaps on canonical forms.
func CheckTablePlacement(bucketRoot, loc Location) error {
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
