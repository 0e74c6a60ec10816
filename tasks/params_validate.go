package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/form"
)

// ValidateParams checks a submission body for the task type against its
// schema and returns the params to store: recognised fields with their
// defaults filled, unknown fields dropped — or, for a Strict schema (a task
// that deletes data), refused. Only shape and basic values are
// checked here; Submit then checks an index task's column against the
// table's observed schema. A refusal is an *fault.Error whose Field names
// the parameter at fault (and whose Err is every field's form.Errors).
func ValidateParams(t Type, body []byte) (map[string]any, error) {
	sc, err := schemaOf(t)
	if err != nil {
		return nil, err
	}
	members, err := parseObject(body, sc.BodyOptional, sc.Op)
	if err != nil {
		return nil, err
	}
	if sc.Strict {
		if err := refuseUnknown(sc, members); err != nil {
			return nil, err
		}
	}
	vals, derrs := form.DecodeJSON(sc.Fields, members)
	return validate(sc, sc.Fields, vals, derrs)
}

// validateText is ValidateParams for a form's text, read by the fields the
// console offers (forms.go).
func validateText(sc Schema, fields []form.Field, text map[string]string) (map[string]any, error) {
	vals, perrs := form.ParseText(fields, text)
	return validate(sc, fields, vals, perrs)
}

// validate applies the fields' rules and the schema's own (NeedOneOf) to
// values read from either representation; readErrs are the read's.
func validate(sc Schema, fields []form.Field, vals form.Values, readErrs form.Errors) (map[string]any, error) {
	p, verrs := form.Validate(fields, vals)
	errs := form.Merge(fields, readErrs, verrs)
	if len(errs) == 0 && len(sc.NeedOneOf) > 0 {
		given := false
		for _, n := range sc.NeedOneOf {
			if v, ok := vals[n]; ok && v != nil && v != form.Blank {
				given = true
			}
		}
		if !given {
			errs = form.Errors{{Field: sc.NeedOneOf[0], Message: sc.Op + " needs " + form.OrList(sc.NeedOneOf) + ": give at least one."}}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

func schemaOf(t Type) (Schema, error) {
	sc, ok := SchemaOf(t)
	if !ok {
		_, err := ParseType(string(t))
		if err == nil {
			err = invalidf("task_type %q has no parameter schema", t)
		}
		return Schema{}, err
	}
	return sc, nil
}

// parseObject decodes a body that must be a JSON object into its members.
// An empty body is an empty object when the body is optional. Decoding into
// a map (not a struct) keeps names case-sensitive and lets unknown members
// pass without being stored.
func parseObject(body []byte, optional bool, what string) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return map[string]json.RawMessage{}, nil
		}
		return nil, invalidf("%s needs a JSON object body", what)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, invalidf("the body of %s must be a JSON object", what)
	}
	return m, nil
}

// refuseUnknown names the first member (by name) a strict schema does not
// define.
func refuseUnknown(sc Schema, members map[string]json.RawMessage) error {
	var unknown []string
	for k := range members {
		if _, ok := sc.Field(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return &fault.Error{Kind: fault.Invalid, Field: unknown[0], Message: fmt.Sprintf(
		"%s deletes data and refuses fields it does not know: %s is not one of %s; nothing was submitted",
		sc.Op, strings.Join(unknown, ", "), strings.Join(names, ", "))}
}
