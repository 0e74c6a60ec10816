package form

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/floe/floe/fault"
)

// FieldError is what is wrong with one field, as a sentence for people.
type FieldError struct {
	Field   string
	Message string
}

// Errors are field errors in field order.
type Errors []FieldError

func (e Errors) Error() string {
	msgs := make([]string, len(e))
	for i, fe := range e {
		msgs[i] = fe.Message
	}
	return strings.Join(msgs, " ")
}

// Map keys each field's message by its name (nil when there is none).
func (e Errors) Map() map[string]string {
	if len(e) == 0 {
		return nil
	}
	m := make(map[string]string, len(e))
	for _, fe := range e {
		if _, ok := m[fe.Field]; !ok {
			m[fe.Field] = fe.Message
		}
	}
	return m
}

// Err is nil without errors, else a fault.Invalid about the first field
// whose Err is every field's (errors.As finds them, to show each at its
// field).
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return &fault.Error{Kind: fault.Invalid, Field: e[0].Field, Message: e[0].Message, Err: e}
}

// Merge adds b's errors for fields a has none for, and orders them by field.
func Merge(fields []Field, a, b Errors) Errors {
	seen := map[string]bool{}
	out := slices.Clone(a)
	for _, fe := range a {
		seen[fe.Field] = true
	}
	for _, fe := range b {
		if !seen[fe.Field] {
			out = append(out, fe)
		}
	}
	order := map[string]int{}
	for i, f := range fields {
		order[f.Name] = i
	}
	slices.SortStableFunc(out, func(x, y FieldError) int { return order[x.Field] - order[y.Field] })
	return out
}

// Validate applies the fields' rules to typed values, however they were
// read (ParseText for a form, DecodeJSON for an API body): type, bounds,
// options, pattern, required, fixed values and conditions. A field not
// given takes its default; one given Blank (a form's emptied input) takes
// it too, unless the field is required: emptying a required field is an
// error even when it has a default. It returns the
// values to keep: every field given or defaulted, in its canonical type;
// names no field declares are dropped. A field whose condition does not
// hold is hidden: it takes no value and no default, and one given anyway is
// refused (a form disables a hidden field, so only a client that did not
// read the form sends one, and dropping its value silently would run
// another job than it asked for). A field with neither a value nor a
// default is left out, except that a StringList is then the empty list and
// a Bool false, the zero a form would submit.
func Validate(fields []Field, vals Values) (Values, Errors) {
	out := Values{}
	var errs Errors
	for _, f := range fields {
		v, given := vals[f.Name]
		blank := v == Blank
		given = given && v != nil && !blank
		if !Shown(fields, f, vals) {
			if given {
				errs = append(errs, FieldError{f.Name, fmt.Sprintf("%s applies only when %s, not %s.",
					f.Name, f.When, strconv.Quote(Text(effective(fields, f.When.Field, vals))))})
			}
			continue
		}
		if given && f.ZeroIsDefault && v == float64(0) {
			given = false
		}
		if !given {
			hasDefault := f.Default != nil && (f.DefaultWhen == nil || f.DefaultWhen.Holds(effective(fields, f.DefaultWhen.Field, vals)))
			switch {
			case f.Required && (blank || !hasDefault):
				errs = append(errs, FieldError{f.Name, requiredMessage(f)})
			case hasDefault:
				out[f.Name] = clone(f.Default)
			case f.Type == StringList:
				out[f.Name] = []string{}
			case f.Type == Bool:
				out[f.Name] = false
			}
			continue
		}
		c, msg := check(f, v)
		if msg == "" && f.Fixed != "" && Text(c) != Text(f.Default) {
			msg = fmt.Sprintf("%s can only be %s: %s", f.Name, Text(f.Default), f.Fixed)
		}
		if msg != "" {
			errs = append(errs, FieldError{f.Name, msg})
			continue
		}
		out[f.Name] = c
	}
	return out, errs
}

// ValidateText is ParseText then Validate: a form's text in, typed values
// and every field's first problem out.
func ValidateText(fields []Field, text map[string]string) (Values, Errors) {
	vals, perrs := ParseText(fields, text)
	out, verrs := Validate(fields, vals)
	return out, Merge(fields, perrs, verrs)
}

func requiredMessage(f Field) string {
	switch {
	case f.Type == Select && len(f.Options) > 0:
		return fmt.Sprintf("%s is required: one of %s.", f.Name, quoted(f.OptionValues()))
	}
	return f.Name + " is required."
}

// check returns the canonical value or a sentence saying what is wrong.
func check(f Field, v any) (any, string) {
	switch f.Type {
	case Int:
		n, ok := v.(int64)
		if i, isInt := v.(int); isInt {
			n, ok = int64(i), true
		}
		if !ok {
			return nil, f.Name + " must be a whole number."
		}
		return n, bounds(f, float64(n), "")
	case Float:
		x, ok := v.(float64)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, f.Name + " must be a number."
		}
		return x, bounds(f, x, "")
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, f.Name + " must be true or false."
		}
		if f.Required && !b {
			return nil, f.Name + " must be checked."
		}
		return b, ""
	case Duration:
		d, ok := v.(time.Duration)
		if !ok || d < 0 {
			return nil, f.Name + " must be a duration such as 90s, 15m or 1h30m."
		}
		return d, bounds(f, d.Seconds(), " seconds")
	case StringList:
		items, ok := v.([]string)
		if !ok {
			return nil, f.Name + " must be a list of strings."
		}
		return checkList(f, items)
	}
	s, ok := v.(string)
	if !ok {
		return nil, f.Name + " must be a string."
	}
	switch {
	case s == "":
		if f.Type == Select {
			return nil, fmt.Sprintf("%s must be one of %s.", f.Name, quoted(f.OptionValues()))
		}
		return nil, f.Name + " must not be empty."
	case len(s) > MaxTextLen:
		return nil, fmt.Sprintf("%s is too long (at most %d characters).", f.Name, MaxTextLen)
	}
	switch f.Type {
	case Select:
		if !slices.Contains(f.OptionValues(), s) {
			return nil, fmt.Sprintf("%s %q is not one of %s (case-sensitive).", f.Name, s, quoted(f.OptionValues()))
		}
		return s, ""
	case Age:
		secs, msg := ageSeconds(f, s)
		if msg != "" {
			return nil, msg
		}
		return s, bounds(f, secs, " seconds")
	}
	if m := bounds(f, float64(utf8.RuneCountInString(s)), " characters"); m != "" {
		return nil, m
	}
	if msg := matches(f, s, fmt.Sprintf("%s %q", f.Name, s)); msg != "" {
		return nil, msg
	}
	return s, ""
}

func checkList(f Field, items []string) (any, string) {
	if len(items) > MaxItems {
		return nil, fmt.Sprintf("%s has %d items; at most %d are taken.", f.Name, len(items), MaxItems)
	}
	if f.Required && len(items) == 0 {
		return nil, f.Name + " needs at least one item."
	}
	if len(items) > 0 {
		if m := bounds(f, float64(len(items)), " items"); m != "" {
			return nil, m
		}
	}
	for _, it := range items {
		if it == "" {
			return nil, f.Name + " has an empty item; remove it or fill it in."
		}
		if len(it) > MaxTextLen {
			return nil, fmt.Sprintf("%s has an item longer than %d characters.", f.Name, MaxTextLen)
		}
		if msg := matches(f, it, fmt.Sprintf("%s: %q", f.Name, it)); msg != "" {
			return nil, msg
		}
	}
	return slices.Clone(items), ""
}

// matches checks a pattern; what names the value in the complaint.
func matches(f Field, s, what string) string {
	if f.Pattern == "" {
		return ""
	}
	re, err := compile(f.Pattern)
	if err != nil {
		return f.Name + " cannot be checked: its pattern is not a valid regular expression."
	}
	if !re.MatchString(s) {
		return fmt.Sprintf("%s does not match the required pattern %s.", what, f.Pattern)
	}
	return ""
}

// maxPatternLen bounds a worker's pattern; a longer one is refused as
// invalid rather than compiled on every request.
const maxPatternLen = 1024

func compile(pattern string) (*regexp.Regexp, error) {
	if len(pattern) > maxPatternLen {
		return nil, fmt.Errorf("pattern too long")
	}
	return regexp.Compile("^(?:" + pattern + ")$")
}

// AgePattern is the text an Age takes: a whole number and one unit.
const AgePattern = `[0-9]+[dhms]`

var ageRE = regexp.MustCompile(`^` + AgePattern + `$`)

// maxAgeAmount is far past any real retention, and no overflow when scaled
// to seconds.
const maxAgeAmount = 1 << 40

var ageUnits = map[byte]float64{'d': 86400, 'h': 3600, 'm': 60, 's': 1}

func ageSeconds(f Field, s string) (float64, string) {
	if !ageRE.MatchString(s) {
		return 0, fmt.Sprintf(`%s must be a whole number followed by d, h, m or s, e.g. "7d" or "168h" (got %q).`, f.Name, s)
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if err != nil || n > maxAgeAmount {
		return 0, fmt.Sprintf("%s %q is too large.", f.Name, s)
	}
	return float64(n) * ageUnits[s[len(s)-1]], ""
}

func bounds(f Field, x float64, unit string) string {
	if f.Min != nil && x < *f.Min {
		return fmt.Sprintf("%s must be at least %s%s.", f.Name, PlainNumber(*f.Min), unit)
	}
	if f.Max != nil && x > *f.Max {
		return fmt.Sprintf("%s must be at most %s%s.", f.Name, PlainNumber(*f.Max), unit)
	}
	return ""
}

func quoted(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// clone copies a default a caller could change (a list).
func clone(v any) any {
	if l, ok := v.([]string); ok {
		return slices.Clone(l)
	}
	return v
}
