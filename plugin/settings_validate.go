package plugin

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxSettingValueLen bounds one submitted value; settings are short knobs,
// not documents.
const maxSettingValueLen = 4096

// ValidateSettings checks form values against a descriptor: type, min/max,
// options, pattern and required, skipping fields hidden by visible_when.
// Missing values take the field's default. clean holds every field in
// canonical text ("true"/"false", "90s"-style durations as Go durations,
// string lists as JSON arrays); fieldErrors maps a field name to a sentence
// for the form, and is nil when everything is valid. Values for names the
// descriptor does not declare are dropped. A missing name means "use the
// default", so a form must send "false" for an unchecked checkbox.
func ValidateSettings(d Descriptor, values map[string]string) (clean map[string]string, fieldErrors map[string]string) {
	clean = map[string]string{}
	errs := map[string]string{}
	fields := d.Fields()
	// First pass: raw values with defaults, so visible_when can look at them.
	raw := map[string]string{}
	for _, f := range fields {
		v, ok := values[f.Name]
		if !ok {
			v = f.Default
		}
		raw[f.Name] = v
	}
	for _, f := range fields {
		name := f.Name
		v := raw[name]
		hidden := false
		if vw := f.VisibleWhen; vw != nil && vw.Field != "" {
			hidden = !sameValue(raw[vw.Field], vw.Equals)
		}
		c, msg := checkField(f, v)
		if msg != "" && !(hidden && strings.TrimSpace(v) == "") {
			if !hidden {
				errs[name] = msg
				continue
			}
			// A hidden field with a bad value falls back to its default.
			c, _ = checkField(f, f.Default)
		}
		if hidden && strings.TrimSpace(v) == "" {
			c, _ = checkField(f, f.Default)
		}
		clean[name] = c
	}
	if len(errs) == 0 {
		errs = nil
	}
	return clean, errs
}

func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	ba, okA := parseBool(a)
	bb, okB := parseBool(b)
	return okA && okB && ba == bb
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "1", "yes":
		return true, true
	case "false", "off", "0", "no", "":
		return false, true
	}
	return false, false
}

// checkField returns the canonical value or a sentence saying what is wrong.
func checkField(f FormField, v string) (string, string) {
	label := f.Label
	if label == "" {
		label = f.Name
	}
	if len(v) > maxSettingValueLen {
		return "", fmt.Sprintf("%s is too long (at most %d characters).", label, maxSettingValueLen)
	}
	t := strings.TrimSpace(v)
	if t == "" && f.Type != FieldBool && f.Type != FieldStringList {
		if f.Required {
			return "", fmt.Sprintf("%s is required.", label)
		}
		return "", ""
	}
	rangeMsg := func(x float64, unit string) string {
		if f.Min != nil && x < *f.Min {
			return fmt.Sprintf("%s must be at least %s%s.", label, trimFloat(*f.Min), unit)
		}
		if f.Max != nil && x > *f.Max {
			return fmt.Sprintf("%s must be at most %s%s.", label, trimFloat(*f.Max), unit)
		}
		return ""
	}
	switch f.Type {
	case FieldInt:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return "", fmt.Sprintf("%s must be a whole number.", label)
		}
		if m := rangeMsg(float64(n), ""); m != "" {
			return "", m
		}
		return strconv.FormatInt(n, 10), ""
	case FieldFloat:
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Sprintf("%s must be a number.", label)
		}
		if m := rangeMsg(x, ""); m != "" {
			return "", m
		}
		return strconv.FormatFloat(x, 'f', -1, 64), ""
	case FieldBool:
		b, ok := parseBool(t)
		if !ok {
			return "", fmt.Sprintf("%s must be true or false.", label)
		}
		if f.Required && !b {
			return "", fmt.Sprintf("%s must be checked.", label)
		}
		return strconv.FormatBool(b), ""
	case FieldSelect:
		for _, o := range f.Options {
			if o.Value == t {
				return t, ""
			}
		}
		return "", fmt.Sprintf("%s must be one of the listed choices.", label)
	case FieldDuration:
		d, err := parseDuration(t)
		if err != nil {
			return "", fmt.Sprintf("%s must be a duration such as 90s, 15m or 1h30m.", label)
		}
		if m := rangeMsg(d.Seconds(), " seconds"); m != "" {
			return "", m
		}
		return d.String(), ""
	case FieldStringList:
		items, err := parseList(v)
		if err != nil {
			return "", fmt.Sprintf("%s must be one item per line or a JSON array of strings.", label)
		}
		if f.Required && len(items) == 0 {
			return "", fmt.Sprintf("%s needs at least one item.", label)
		}
		if m := rangeMsg(float64(len(items)), " items"); m != "" && len(items) > 0 {
			return "", m
		}
		if f.Pattern != "" {
			re, err := regexp.Compile("^(?:" + f.Pattern + ")$")
			if err != nil {
				return "", fmt.Sprintf("%s cannot be checked: the worker's pattern is invalid.", label)
			}
			for _, it := range items {
				if !re.MatchString(it) {
					return "", fmt.Sprintf("%s: %q does not match the required pattern %s.", label, it, f.Pattern)
				}
			}
		}
		b, _ := json.Marshal(items)
		return string(b), ""
	default: // string and unspecified
		if m := rangeMsg(float64(utf8.RuneCountInString(t)), " characters"); m != "" {
			return "", m
		}
		if f.Pattern != "" {
			re, err := regexp.Compile("^(?:" + f.Pattern + ")$")
			if err != nil {
				return "", fmt.Sprintf("%s cannot be checked: the worker's pattern is invalid.", label)
			}
			if !re.MatchString(t) {
				return "", fmt.Sprintf("%s does not match the required pattern %s.", label, f.Pattern)
			}
		}
		return t, ""
	}
}

func trimFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) } // plain decimals, never 1e+15

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

// parseList accepts a JSON array of strings or one item per line (commas
// also separate on a single line); blank items are dropped.
func parseList(v string) ([]string, error) {
	t := strings.TrimSpace(v)
	items := []string{}
	if strings.HasPrefix(t, "[") {
		var arr []string
		if err := json.Unmarshal([]byte(t), &arr); err != nil {
			return nil, err
		}
		for _, a := range arr {
			if a = strings.TrimSpace(a); a != "" {
				items = append(items, a)
			}
		}
		return items, nil
	}
	sep := "\n"
	if !strings.Contains(t, "\n") {
		sep = ","
	}
	for _, a := range strings.Split(t, sep) {
		if a = strings.TrimSpace(a); a != "" {
			items = append(items, a)
		}
	}
	return items, nil
}

// settingsJSON renders clean values as the typed JSON object workers get:
// numbers for int/float/duration (seconds), booleans, arrays for lists.
func settingsJSON(d Descriptor, clean map[string]string) string {
	out := map[string]any{}
	types := map[string]FieldType{}
	for _, f := range d.Fields() {
		types[f.Name] = f.Type
	}
	for k, v := range clean {
		switch types[k] {
		case FieldInt:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[k] = n
			}
		case FieldFloat:
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				out[k] = x
			}
		case FieldBool:
			out[k] = v == "true"
		case FieldDuration:
			if dd, err := parseDuration(v); err == nil {
				out[k] = dd.Seconds()
			}
		case FieldStringList:
			var arr []string
			if json.Unmarshal([]byte(v), &arr) == nil {
				out[k] = arr
			}
		default:
			if v != "" {
				out[k] = v
			}
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
