package form

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bounds of one value, so no form or body makes Validate walk a document.
const (
	// MaxTextLen bounds one value's text: settings and parameters are
	// short knobs and names, not documents.
	MaxTextLen = 4096
	// MaxItems bounds a list: lists name columns or indices, never
	// thousands of them.
	MaxItems = 1000
)

// Values are typed values by field name, as the field types document; a
// missing name (or nil) means "not given".
type Values = map[string]any

// Blank is the value ParseText gives a field whose input was sent empty:
// not given, so an optional field takes its default, but emptied, so a
// required one is missing (a name not sent at all takes the default even
// then).
const Blank = blank("")

type blank string

// ParseText reads a form's text by each field's type. A blank value is
// Blank; a name no field declares is dropped. errs has a sentence for each
// field whose text is not of its type.
func ParseText(fields []Field, text map[string]string) (Values, Errors) {
	out := Values{}
	var errs Errors
	for _, f := range fields {
		s, ok := text[f.Name]
		if !ok {
			continue
		}
		v, msg := parseText(f, s)
		if msg != "" {
			errs = append(errs, FieldError{Field: f.Name, Message: msg})
			continue
		}
		out[f.Name] = v
	}
	return out, errs
}

// parseText reads one value's text; blank text is Blank.
func parseText(f Field, s string) (any, string) {
	if len(s) > MaxTextLen {
		return nil, fmt.Sprintf("%s is too long (at most %d characters).", f.Name, MaxTextLen)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return Blank, ""
	}
	switch f.Type {
	case Int:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, f.Name + " must be a whole number."
		}
		return n, ""
	case Float:
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, f.Name + " must be a number."
		}
		return x, ""
	case Bool:
		b, ok := parseBool(t)
		if !ok {
			return nil, f.Name + " must be true or false."
		}
		return b, ""
	case Duration:
		d, err := parseDuration(t)
		if err != nil {
			return nil, f.Name + " must be a duration such as 90s, 15m or 1h30m."
		}
		return d, ""
	case StringList:
		items, err := parseList(t)
		if err != nil {
			return nil, f.Name + " must be one item per line, items separated by commas, or a JSON array of strings."
		}
		return items, ""
	}
	return t, ""
}

// parseBool reads the spellings a form or a worker's default uses.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "1", "yes":
		return true, true
	case "false", "off", "0", "no":
		return false, true
	}
	return false, false
}

// parseDuration accepts Go durations ("90s", "1h30m") or whole seconds.
func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/int64(time.Second) {
			return 0, fmt.Errorf("out of range")
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration")
	}
	return d, nil
}

// parseList reads a JSON array of strings, one item per line (blank lines
// are layout and dropped) or, on one line, items separated by commas (where
// an empty item is kept, for Validate to refuse: "a, ,b" says something is
// missing). Items are trimmed.
func parseList(t string) ([]string, error) {
	items := []string{}
	if strings.HasPrefix(t, "[") {
		var arr []string
		if err := json.Unmarshal([]byte(t), &arr); err != nil {
			return nil, err
		}
		for _, a := range arr {
			items = append(items, strings.TrimSpace(a))
		}
		return items, nil
	}
	if strings.Contains(t, "\n") {
		for a := range strings.SplitSeq(t, "\n") {
			if a = strings.TrimSpace(a); a != "" {
				items = append(items, a)
			}
		}
		return items, nil
	}
	for a := range strings.SplitSeq(t, ",") {
		items = append(items, strings.TrimSpace(a))
	}
	return items, nil
}

func jsonList(items []string) string {
	if items == nil {
		items = []string{}
	}
	b, _ := json.Marshal(items) // a []string always marshals
	return string(b)
}
