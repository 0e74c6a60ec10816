package tasks

import (
	"regexp"
	"strconv"
)

// ValidateParams checks a submission body for the task type against its
// schema and returns the params to store: recognised fields with their
// defaults filled, unknown fields dropped. Only shape and basic values are
// checked here; whether a column or index exists is found out when the task
// runs. A refusal is an *fault.Error whose Field names the parameter at fault.
func ValidateParams(t Type, body []byte) (map[string]any, error) {
	sc, ok := SchemaOf(t)
	if !ok {
		_, err := ParseType(string(t))
		if err == nil {
			err = invalidf("task_type %q has no parameter schema", t)
		}
		return nil, err
	}
	f, err := parseObject(body, sc.BodyOptional, sc.Op)
	if err != nil {
		return nil, err
	}
	p := map[string]any{}
	given := 0
	for _, fd := range sc.Fields {
		if fd.Only != nil && !fd.Only.holds(p) {
			if _, ok := f.raw(fd.Name); ok {
				return nil, fieldf(fd.Name, "%s applies only to %s %s, not %q", fd.Name, fd.Only.Field, quoteList(fd.Only.Values), p[fd.Only.Field])
			}
			continue
		}
		v, ok, err := readField(f, fd)
		if err != nil {
			return nil, err
		}
		if ok {
			if contains(sc.NeedOneOf, fd.Name) {
				given++
			}
			p[fd.Name] = v
			continue
		}
		switch {
		case fd.Required:
			return nil, fieldf(fd.Name, "%s is required: %s", fd.Name, fd.Help)
		case fd.Default != nil && (fd.DefaultOnly == nil || fd.DefaultOnly.holds(p)):
			p[fd.Name] = fd.Default
		}
	}
	if len(sc.NeedOneOf) > 0 && given == 0 {
		return nil, fieldf(sc.NeedOneOf[0], "%s needs %s: give at least one", sc.Op, orList(sc.NeedOneOf))
	}
	return p, nil
}

// olderThanExpr is an integer amount and one unit: 7d, 168h, 30m, 90s.
const olderThanExpr = `[0-9]+[dhms]`

var olderThanPattern = regexp.MustCompile(`^` + olderThanExpr + `$`)

// readField reads one member by its kind; ok is false when it is absent
// (or given as a value that means "the default").
func readField(f fields, fd Field) (any, bool, error) {
	switch fd.Kind {
	case KindInt:
		return typed(f.integer(fd.Name, fd.Min))
	case KindNumber:
		v, ok, err := f.number(fd.Name)
		if fd.ZeroIsDefault && v == 0 {
			ok = false
		}
		return v, ok && err == nil, err
	case KindBool:
		v, ok, err := f.boolean(fd.Name)
		if err == nil && ok && v && fd.MustBeFalse {
			return nil, false, fieldf(fd.Name, "%s must be false: %s", fd.Name, fd.Help)
		}
		return v, ok, err
	case KindSelect:
		return typed(f.oneOf(fd.Name, fd.Options...))
	case KindStrings:
		return typed(f.strings(fd.Name))
	case KindAge:
		r, ok := f.raw(fd.Name)
		if !ok {
			return nil, false, nil
		}
		s, _, err := f.str(fd.Name)
		if err != nil || !olderThanPattern.MatchString(s) {
			return nil, false, fieldf(fd.Name, "%s must be a whole number followed by d, h, m or s, e.g. \"7d\" or \"168h\" (got %s)", fd.Name, r)
		}
		if n, err := strconv.ParseInt(s[:len(s)-1], 10, 64); err != nil || n > maxOlderThanAmount {
			return nil, false, fieldf(fd.Name, "%s %q is too large", fd.Name, s)
		}
		return s, true, nil
	default:
		return typed(f.str(fd.Name))
	}
}

// typed drops the static type of a reader's value.
func typed[T any](v T, ok bool, err error) (any, bool, error) { return v, ok, err }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// orList joins names as "a or b" / "a, b or c".
func orList(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " or "
		default:
			out += ", "
		}
		out += n
	}
	return out
}
