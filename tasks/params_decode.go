package tasks

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// fields is a request body split into its top-level members. Decoding into a
// map (not a struct) keeps names case-sensitive and lets unknown fields pass
// without being stored.
type fields map[string]json.RawMessage

// parseObject decodes a body that must be a JSON object. An empty body is an
// empty object when the body is optional.
func parseObject(body []byte, optional bool, what string) (fields, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return fields{}, nil
		}
		return nil, invalidf("%s needs a JSON object body", what)
	}
	var f fields
	if err := json.Unmarshal(body, &f); err != nil || f == nil {
		return nil, invalidf("the body of %s must be a JSON object", what)
	}
	return f, nil
}

// raw returns a member's JSON text; a missing member and JSON null are both
// "not given", so clients that serialise unset options as null get defaults.
func (f fields) raw(name string) (json.RawMessage, bool) {
	r, ok := f[name]
	if !ok || string(r) == "null" {
		return nil, false
	}
	return r, true
}

// integer reads an integer member no smaller than min. Fractions, exponents,
// strings and values beyond int64 are refused.
func (f fields) integer(name string, min int64) (int64, bool, error) {
	r, ok := f.raw(name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(r), 10, 64)
	if err != nil {
		return 0, false, fieldf(name, "%s must be an integer %s", name, minRule(min))
	}
	if n < min {
		return 0, false, fieldf(name, "%s must be an integer %s, got %d", name, minRule(min), n)
	}
	return n, true, nil
}

func minRule(min int64) string {
	if min == 1 {
		return "greater than 0"
	}
	return "of at least " + strconv.FormatInt(min, 10)
}

// number reads any finite JSON number.
func (f fields) number(name string) (float64, bool, error) {
	r, ok := f.raw(name)
	if !ok {
		return 0, false, nil
	}
	var v float64
	if r[0] == '"' || json.Unmarshal(r, &v) != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, fieldf(name, "%s must be a number", name)
	}
	return v, true, nil
}

func (f fields) boolean(name string) (bool, bool, error) {
	r, ok := f.raw(name)
	if !ok {
		return false, false, nil
	}
	switch string(r) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, fieldf(name, "%s must be true or false", name)
}

// str reads a string member; empty strings are refused, since every string
// option of the task API names something.
func (f fields) str(name string) (string, bool, error) {
	r, ok := f.raw(name)
	if !ok {
		return "", false, nil
	}
	var s string
	if json.Unmarshal(r, &s) != nil {
		return "", false, fieldf(name, "%s must be a string", name)
	}
	if s == "" {
		return "", false, fieldf(name, "%s must not be empty", name)
	}
	return s, true, nil
}

// oneOf reads a string member that must be one of the allowed values,
// compared case-sensitively.
func (f fields) oneOf(name string, allowed ...string) (string, bool, error) {
	s, ok, err := f.str(name)
	if err != nil || !ok {
		if err != nil {
			err = fieldf(name, "%s must be one of %s", name, quoteList(allowed))
		}
		return "", false, err
	}
	for _, a := range allowed {
		if s == a {
			return s, true, nil
		}
	}
	return "", false, fieldf(name, "%s %q is not one of %s (case-sensitive)", name, s, quoteList(allowed))
}

func (f fields) strings(name string) ([]string, bool, error) {
	r, ok := f.raw(name)
	if !ok {
		return nil, false, nil
	}
	var list []string
	if json.Unmarshal(r, &list) != nil {
		return nil, false, fieldf(name, "%s must be a list of strings", name)
	}
	for _, s := range list {
		if s == "" {
			return nil, false, fieldf(name, "%s must not contain empty names", name)
		}
	}
	if list == nil {
		list = []string{}
	}
	return list, true, nil
}

func quoteList(vals []string) string {
	var b bytes.Buffer
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(v))
	}
	return b.String()
}
