// Package form is floe's one model of a form field: the settings a worker's
// job type declares, the parameters of a maintenance task and the inputs the
// console renders for both are all Fields, and one Validate checks them.
//
// Values travel typed (Values): a form's text is read by each field's type
// (ParseText) and a JSON body by the same types (DecodeJSON), then Validate
// applies the one set of rules to either. The package knows nothing of HTTP,
// HTML or protobuf: the plugin channel converts at its edge, views render.
package form

import (
	"strconv"
	"strings"
	"time"
)

// Type is the kind of value a field holds, and so the Go type of its value
// in Values.
type Type string

// The field types. An unknown type reads as String.
const (
	String     Type = "string"      // string
	Int        Type = "int"         // int64
	Float      Type = "float"       // float64, finite
	Bool       Type = "bool"        // bool
	Select     Type = "select"      // string, one of Options (case-sensitive)
	Duration   Type = "duration"    // time.Duration; text "90s", "1h30m" or whole seconds
	StringList Type = "string_list" // []string; text one item per line, commas on one line, or a JSON array
	// Age is a retention age as the task API spells it: a whole number and
	// one unit d, h, m or s ("7d"), kept as that text.
	Age Type = "age"
)

// Field is one setting or parameter.
type Field struct {
	Name  string // the key in Values, the settings JSON and the task body
	Label string // for people; Name when empty
	Help  string // one sentence shown beside the input
	Type  Type
	// Widget hints how a String is entered: "password" or "textarea";
	// anything else is a one-line input.
	Widget string
	// Min and Max bound Int and Float values, Duration and Age in seconds,
	// String in characters and StringList in items; nil = no bound.
	Min, Max *float64
	Options  []Option // Select: the values; String: the known values, offered in a select
	Pattern  string   // RE2 a String value (each StringList item) must match fully
	Required bool
	// Default is the value used when none is given, of the field's type
	// (int64, float64, bool, string, time.Duration, []string); nil = none,
	// whoever runs the job decides.
	Default any
	// When limits the field to values of another: while it does not hold
	// the field is hidden (a form disables it, so it is not sent), takes no
	// value and no default, and a value given anyway is refused.
	When *Condition
	// DefaultWhen fills Default only while it holds; otherwise the field is
	// optional without a default.
	DefaultWhen *Condition
	// Fixed, when set, says why Default is the only value the field takes
	// (an option floe never allows, a value the engine cannot change); a
	// form shows the value read-only.
	Fixed string
	// ZeroIsDefault: a Float given as 0 means "the default".
	ZeroIsDefault bool
	// Narrows names a Select whose choices depend on this field's: each of
	// this field's Options lists, in Narrows, the values that Select may
	// take. A form narrows the choices as this field changes; the service
	// that built the options enforces the rule they encode.
	Narrows string
}

// Option is one choice of a field.
type Option struct {
	Value string
	Label string // Value when empty
	// Narrows: while this option is chosen, the field named by the owning
	// Field's Narrows may take only these values.
	Narrows []string
}

// Condition is "the field Field has one of Values". Values are text as a
// form sends it; booleans compare by meaning ("on" is "true").
type Condition struct {
	Field  string
	Values []string
}

// Title is how messages and forms name the field.
func (f Field) Title() string {
	if f.Label != "" {
		return f.Label
	}
	return f.Name
}

// OptionValues lists the values of the field's options.
func (f Field) OptionValues() []string {
	out := make([]string, len(f.Options))
	for i, o := range f.Options {
		out[i] = o.Value
	}
	return out
}

// Holds reports whether the condition is met by v, a typed value or its
// text (nil, the field given no value, holds for no value but "").
func (c *Condition) Holds(v any) bool {
	s := ""
	if v != nil {
		s = Text(v)
	}
	for _, w := range c.Values {
		if s == w {
			return true
		}
		if a, ok := parseBool(s); ok {
			if b, ok := parseBool(w); ok && a == b {
				return true
			}
		}
	}
	return false
}

// String renders the condition for messages: `index_type is "FTS"` or
// `mode is "a" or "b"`.
func (c *Condition) String() string {
	q := make([]string, len(c.Values))
	for i, v := range c.Values {
		q[i] = strconv.Quote(v)
	}
	return c.Field + " is " + OrList(q)
}

// Find returns the field of a list by name.
func Find(fields []Field, name string) (Field, bool) {
	for _, f := range fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Shown reports whether f's condition holds for vals: the value given for
// the field it reads, else that field's default. vals may hold typed values
// or text.
func Shown(fields []Field, f Field, vals map[string]any) bool {
	if f.When == nil || f.When.Field == "" {
		return true
	}
	return f.When.Holds(effective(fields, f.When.Field, vals))
}

// effective is the value a condition reads: the one given, else the
// default (a DefaultWhen default counts only where it applies, which a
// condition cannot know, so it does not count).
func effective(fields []Field, name string, vals map[string]any) any {
	if v, ok := vals[name]; ok && v != nil && v != Blank {
		return v
	}
	if d, ok := Find(fields, name); ok && d.DefaultWhen == nil {
		return d.Default
	}
	return nil
}

// Text is the canonical text of a value: what a form shows and what settings
// store. Integers in decimal, floats as plain decimals (never 1e+15),
// booleans "true"/"false", durations as Go prints them ("1h30m0s"), lists
// as a JSON array; text as it is.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return PlainNumber(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Duration:
		return x.String()
	case []string:
		return jsonList(x)
	}
	return ""
}

// Encode is a value as the plugin channel carries job parameters: strings
// as they are, everything else as JSON (durations in seconds).
func Encode(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Duration:
		return PlainNumber(x.Seconds())
	case []string:
		return jsonList(x)
	case nil:
		return ""
	}
	return Text(v)
}

// PlainNumber renders a float as a plain decimal: 'g' would print
// 9.007199254740991e+15 for JavaScript's MAX_SAFE_INTEGER, which reads badly
// wherever a form shows a bound.
func PlainNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// OrList joins items as "a", "a or b", "a, b or c".
func OrList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
