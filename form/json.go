package form

import (
	"encoding/json"
	"math"
	"strconv"
)

// DecodeJSON reads the members of a JSON object by each field's type, as
// ParseText reads a form's text: JSON null means "not given"; a member no
// field declares is dropped. JSON is stricter than text where it can say
// more: an Int is an integer literal (not "10", 1.5 or 1e3), a Float any
// finite number (not a string), a Bool true or false, and a string member
// given as "" stays given, for Validate to refuse as empty.
func DecodeJSON(fields []Field, members map[string]json.RawMessage) (Values, Errors) {
	out := Values{}
	var errs Errors
	for _, f := range fields {
		raw, ok := members[f.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		v, msg := decodeJSON(f, raw)
		if msg != "" {
			errs = append(errs, FieldError{Field: f.Name, Message: msg})
			continue
		}
		out[f.Name] = v
	}
	return out, errs
}

func decodeJSON(f Field, raw json.RawMessage) (any, string) {
	if len(raw) > MaxTextLen+2 && f.Type != StringList {
		return nil, f.Name + " is too long (at most " + strconv.Itoa(MaxTextLen) + " characters)."
	}
	switch f.Type {
	case Int:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, f.Name + " must be a whole number" + boundsPhrase(f) + "."
		}
		return n, ""
	case Float:
		var x float64
		if raw[0] == '"' || json.Unmarshal(raw, &x) != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, f.Name + " must be a number."
		}
		return x, ""
	case Bool:
		switch string(raw) {
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
		return nil, f.Name + " must be true or false."
	case Duration:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if d, err := parseDuration(s); err == nil {
				return d, ""
			}
		} else if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			if d, err := parseDuration(strconv.FormatInt(n, 10)); err == nil {
				return d, ""
			}
		}
		return nil, f.Name + ` must be a duration such as "90s", "15m" or "1h30m", or whole seconds.`
	case StringList:
		var list []string
		if json.Unmarshal(raw, &list) != nil {
			return nil, f.Name + " must be a list of strings."
		}
		if list == nil {
			list = []string{}
		}
		return list, ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		if f.Type == Select {
			return nil, f.Name + " must be one of " + quoted(f.OptionValues()) + "."
		}
		return nil, f.Name + " must be a string."
	}
	return s, ""
}

// boundsPhrase words an Int's bounds for a type complaint: " of at least 1".
func boundsPhrase(f Field) string {
	switch {
	case f.Min != nil && f.Max != nil:
		return " from " + PlainNumber(*f.Min) + " to " + PlainNumber(*f.Max)
	case f.Min != nil:
		return " of at least " + PlainNumber(*f.Min)
	case f.Max != nil:
		return " of at most " + PlainNumber(*f.Max)
	}
	return ""
}
