package form

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/fault"
)

func ptr(v float64) *float64 { return &v }

// everyType has a field of each type with the rules Validate enforces.
var everyType = []Field{
	{Name: "n", Type: Int, Min: ptr(1), Max: ptr(10), Default: int64(3), Required: false},
	{Name: "ratio", Type: Float, Min: ptr(0), Max: ptr(1), Default: 0.5},
	{Name: "on", Type: Bool, Default: false},
	{Name: "mode", Type: Select, Default: "fast", Options: []Option{{Value: "fast"}, {Value: "thorough"}}},
	{Name: "every", Type: Duration, Min: ptr(60), Default: time.Hour},
	{Name: "cols", Type: StringList, Pattern: "[a-z_]+", Max: ptr(3)},
	{Name: "name", Type: String, Pattern: "[a-z]+", Max: ptr(8)},
	{Name: "age", Type: Age, Max: ptr(30 * 86400)},
	{Name: "depth", Type: Int, Required: true, When: &Condition{Field: "mode", Values: []string{"thorough"}}},
}

func TestValidateText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      map[string]string
		wantErr []string
		want    map[string]any // subset of the result; a nil value: absent
	}{
		{"defaults fill", nil, nil, map[string]any{"n": int64(3), "ratio": 0.5, "on": false, "mode": "fast", "every": time.Hour, "cols": []string{}, "name": nil, "depth": nil}},
		{"typed and canonical", map[string]string{"n": " 7 ", "on": "on", "every": "90", "cols": "a_b\nc\n\n", "name": "abc", "age": "7d"}, nil,
			map[string]any{"n": int64(7), "on": true, "every": 90 * time.Second, "cols": []string{"a_b", "c"}, "name": "abc", "age": "7d"}},
		{"blank is not given", map[string]string{"n": "  ", "mode": ""}, nil, map[string]any{"n": int64(3), "mode": "fast"}},
		{"json list", map[string]string{"cols": `["x","y"]`}, nil, map[string]any{"cols": []string{"x", "y"}}},
		{"comma list", map[string]string{"cols": "x, y"}, nil, map[string]any{"cols": []string{"x", "y"}}},
		{"comma list with a hole", map[string]string{"cols": "x, ,y"}, []string{"cols"}, nil},
		{"int below min", map[string]string{"n": "0"}, []string{"n"}, nil},
		{"int above max", map[string]string{"n": "11"}, []string{"n"}, nil},
		{"int not whole", map[string]string{"n": "3.5"}, []string{"n"}, nil},
		{"float NaN", map[string]string{"ratio": "NaN"}, []string{"ratio"}, nil},
		{"float out of range", map[string]string{"ratio": "1.5"}, []string{"ratio"}, nil},
		{"bool garbage", map[string]string{"on": "maybe"}, []string{"on"}, nil},
		{"select not an option", map[string]string{"mode": "slow"}, []string{"mode"}, nil},
		{"select case-sensitive", map[string]string{"mode": "FAST"}, []string{"mode"}, nil},
		{"duration below min", map[string]string{"every": "30s"}, []string{"every"}, nil},
		{"duration garbage", map[string]string{"every": "soon"}, []string{"every"}, nil},
		{"list item breaks pattern", map[string]string{"cols": "ok\nNot-OK"}, []string{"cols"}, nil},
		{"list too long", map[string]string{"cols": "a,b,c,d"}, []string{"cols"}, nil},
		{"string breaks pattern", map[string]string{"name": "ABC"}, []string{"name"}, nil},
		{"string too long", map[string]string{"name": "abcdefghij"}, []string{"name"}, nil},
		{"text too long", map[string]string{"name": strings.Repeat("a", MaxTextLen+1)}, []string{"name"}, nil},
		{"age above max", map[string]string{"age": "31d"}, []string{"age"}, nil},
		{"age in weeks", map[string]string{"age": "1w"}, []string{"age"}, nil},
		{"age huge", map[string]string{"age": "99999999999999999999d"}, []string{"age"}, nil},
		{"hidden required field is not required", map[string]string{"mode": "fast"}, nil, map[string]any{"depth": nil}},
		{"shown required field is required", map[string]string{"mode": "thorough"}, []string{"depth"}, nil},
		{"shown field takes its value", map[string]string{"mode": "thorough", "depth": "2"}, nil, map[string]any{"depth": int64(2)}},
		{"hidden field given a value is refused", map[string]string{"mode": "fast", "depth": "2"}, []string{"depth"}, nil},
		{"unknown names dropped", map[string]string{"evil": "1"}, nil, map[string]any{"evil": nil}},
		{"every field's error at once", map[string]string{"n": "x", "mode": "y", "ratio": "2"}, []string{"n", "ratio", "mode"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := ValidateText(everyType, tc.in)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
				if e.Message == "" || !strings.HasPrefix(e.Message, e.Field) {
					t.Errorf("message %q does not name its field %s", e.Message, e.Field)
				}
			}
			if !reflect.DeepEqual(fields, tc.wantErr) {
				t.Fatalf("errors at %v, want %v: %v", fields, tc.wantErr, errs)
			}
			for k, w := range tc.want {
				v, ok := got[k]
				if w == nil {
					if ok {
						t.Errorf("%s = %v, want it absent", k, v)
					}
					continue
				}
				if !reflect.DeepEqual(v, w) {
					t.Errorf("%s = %#v, want %#v", k, v, w)
				}
			}
		})
	}
}

// TestTextAndJSONAgree: a form's text and a JSON body meaning the same
// values validate to the same values, and the same mistakes to the same
// field errors with the same sentences (after the read, which JSON words
// more strictly).
func TestTextAndJSONAgree(t *testing.T) {
	for _, tc := range []struct {
		text map[string]string
		body string
	}{
		{map[string]string{"n": "7", "on": "true", "mode": "thorough", "depth": "4", "cols": "a,b", "age": "12h"},
			`{"n": 7, "on": true, "mode": "thorough", "depth": 4, "cols": ["a", "b"], "age": "12h"}`},
		{map[string]string{"n": "70"}, `{"n": 70}`},
		{map[string]string{"mode": "thorough"}, `{"mode": "thorough"}`},
		{map[string]string{"depth": "4"}, `{"depth": 4}`},
		{map[string]string{"age": "1w", "name": "X"}, `{"age": "1w", "name": "X"}`},
		{map[string]string{"every": "90s"}, `{"every": "90s"}`},
	} {
		fromText, textErrs := ValidateText(everyType, tc.text)
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.body), &members); err != nil {
			t.Fatal(err)
		}
		vals, derrs := DecodeJSON(everyType, members)
		if derrs != nil {
			t.Fatalf("%s: %v", tc.body, derrs)
		}
		fromJSON, jsonErrs := Validate(everyType, vals)
		if !reflect.DeepEqual(fromText, fromJSON) || !reflect.DeepEqual(textErrs, jsonErrs) {
			t.Errorf("%v / %s:\n text %v %v\n json %v %v", tc.text, tc.body, fromText, textErrs, fromJSON, jsonErrs)
		}
	}
}

func TestDecodeJSONIsStrict(t *testing.T) {
	for _, tc := range []struct{ field, body string }{
		{"n", `{"n": "10"}`}, {"n", `{"n": 1.5}`}, {"n", `{"n": 1e3}`}, {"n", `{"n": 99999999999999999999}`},
		{"ratio", `{"ratio": "0.2"}`}, {"ratio", `{"ratio": 1e400}`},
		{"on", `{"on": 0}`}, {"on", `{"on": "false"}`},
		{"mode", `{"mode": 1}`}, {"cols", `{"cols": "a"}`}, {"cols", `{"cols": [1]}`},
		{"name", `{"name": 5}`}, {"every", `{"every": "soon"}`},
	} {
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.body), &members); err != nil {
			t.Fatal(err)
		}
		_, errs := DecodeJSON(everyType, members)
		if len(errs) != 1 || errs[0].Field != tc.field {
			t.Errorf("%s: errors %v, want one at %s", tc.body, errs, tc.field)
		}
	}
	// Given empty strings stay given, and Validate refuses them.
	vals, errs := DecodeJSON(everyType, map[string]json.RawMessage{"name": []byte(`""`), "mode": []byte(`""`), "n": []byte("null")})
	if errs != nil {
		t.Fatal(errs)
	}
	if _, verrs := Validate(everyType, vals); len(verrs) != 2 || verrs[0].Field != "mode" || verrs[1].Field != "name" {
		t.Errorf("empty strings: %v", verrs)
	}
}

func TestFixedDefaultWhenAndZero(t *testing.T) {
	fields := []Field{
		{Name: "kind", Type: Select, Options: []Option{{Value: "a"}, {Value: "b"}}},
		{Name: "m", Type: Int, Default: int64(20), DefaultWhen: &Condition{Field: "kind", Values: []string{"b"}}},
		{Name: "unsafe", Type: Bool, Default: false, Fixed: "floe never does that"},
		{Name: "threshold", Type: Float, Default: 0.1, ZeroIsDefault: true},
	}
	got, errs := Validate(fields, Values{"kind": "a", "threshold": 0.0, "unsafe": false})
	if errs != nil || got["m"] != nil || got["threshold"] != 0.1 || got["unsafe"] != false {
		t.Errorf("kind a: %v %v", got, errs)
	}
	if got, _ := Validate(fields, Values{"kind": "b"}); got["m"] != int64(20) {
		t.Errorf("kind b: m = %v, want its default", got["m"])
	}
	_, errs = Validate(fields, Values{"unsafe": true})
	if len(errs) != 1 || errs[0].Message != "unsafe can only be false: floe never does that" {
		t.Errorf("fixed: %v", errs)
	}
	err := errs.Err()
	var fe *fault.Error
	var all Errors
	if !errors.As(err, &fe) || fe.Field != "unsafe" || !errors.Is(err, fault.Invalid) || !errors.As(err, &all) || len(all) != 1 {
		t.Errorf("Err() = %#v", err)
	}
}

func TestConditionsCompareBooleansByMeaning(t *testing.T) {
	fields := []Field{
		{Name: "advanced", Type: Bool, Default: false},
		{Name: "level", Type: Int, When: &Condition{Field: "advanced", Values: []string{"true"}}},
	}
	for _, on := range []string{"true", "on", "1", "yes"} {
		if got, errs := ValidateText(fields, map[string]string{"advanced": on, "level": "3"}); errs != nil || got["level"] != int64(3) {
			t.Errorf("advanced=%s: %v %v", on, got, errs)
		}
	}
	if !Shown(fields, fields[1], map[string]any{"advanced": "on"}) || Shown(fields, fields[1], map[string]any{}) {
		t.Error("Shown does not read text or defaults")
	}
}

func TestTextAndEncode(t *testing.T) {
	for _, tc := range []struct {
		v          any
		text, wire string
	}{
		{int64(1048576), "1048576", "1048576"}, {0.1, "0.1", "0.1"}, {9007199254740991.0, "9007199254740991", "9007199254740991"},
		{true, "true", "true"}, {"7d", "7d", "7d"}, {90 * time.Minute, "1h30m0s", "5400"},
		{[]string{"a", "b"}, `["a","b"]`, `["a","b"]`}, {[]string(nil), "[]", "[]"},
	} {
		if got := Text(tc.v); got != tc.text {
			t.Errorf("Text(%#v) = %q, want %q", tc.v, got, tc.text)
		}
		if got := Encode(tc.v); got != tc.wire {
			t.Errorf("Encode(%#v) = %q, want %q", tc.v, got, tc.wire)
		}
	}
}

// FuzzValidate: any text and any JSON give values of the declared Go types
// or field errors; never a panic.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"", "7", "x, ,y", "[\"a\"]", "1e400", "99999999999999999999d", "\xff", "on", "1h30m"} {
		f.Add(s, `{"n": 1, "cols": ["a"], "age": "7d"}`)
	}
	f.Fuzz(func(t *testing.T, text, body string) {
		in := map[string]string{}
		for _, fd := range everyType {
			in[fd.Name] = text
		}
		got, _ := ValidateText(everyType, in)
		assertTyped(t, got)
		var members map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &members) != nil {
			return
		}
		vals, _ := DecodeJSON(everyType, members)
		got, _ = Validate(everyType, vals)
		assertTyped(t, got)
	})
}

func assertTyped(t *testing.T, vals Values) {
	t.Helper()
	want := map[Type]reflect.Type{Int: reflect.TypeFor[int64](), Float: reflect.TypeFor[float64](), Bool: reflect.TypeFor[bool](),
		Select: reflect.TypeFor[string](), String: reflect.TypeFor[string](), Age: reflect.TypeFor[string](),
		Duration: reflect.TypeFor[time.Duration](), StringList: reflect.TypeFor[[]string]()}
	for _, f := range everyType {
		if v, ok := vals[f.Name]; ok && reflect.TypeOf(v) != want[f.Type] {
			t.Fatalf("%s holds %T, want %v", f.Name, v, want[f.Type])
		}
	}
	if _, err := json.Marshal(vals); err != nil {
		t.Fatalf("values do not marshal: %v", err)
	}
}
