package tasks

import (
	"encoding/json"

	"github.com/floe/floe/plugin"
)

// pluginKinds maps a parameter kind to the plugin's field type.
var pluginKinds = map[Kind]plugin.FieldType{
	KindInt: plugin.FieldInt, KindNumber: plugin.FieldFloat, KindBool: plugin.FieldBool, KindString: plugin.FieldString,
	KindSelect: plugin.FieldSelect, KindStrings: plugin.FieldStringList, KindAge: plugin.FieldString,
}

// JobParams gives the schemas in the plugin's terms, for the workers that
// run the tasks: each parameter as it arrives in a job's parameters
// (jobParams encodes them), with its default in the same encoding.
func JobParams() map[string][]plugin.JobParam {
	out := make(map[string][]plugin.JobParam, len(schemas))
	for _, sc := range schemas {
		defs := make([]plugin.JobParam, 0, len(sc.Fields))
		for _, f := range sc.Fields {
			d := plugin.JobParam{Name: f.Name, Type: pluginKinds[f.Kind], Required: f.Required, Options: f.Options, Help: f.Help}
			if f.Kind == KindInt {
				m := float64(f.Min)
				d.Min = &m
			}
			if f.Kind == KindAge {
				d.Pattern = olderThanExpr
			}
			if f.Default != nil && f.DefaultOnly == nil {
				d.Default = paramText(f.Default)
			}
			if f.Only != nil {
				d.OnlyField, d.OnlyValues = f.Only.Field, f.Only.Values
			}
			defs = append(defs, d)
		}
		out[string(sc.Type)] = defs
	}
	return out
}

// paramText encodes a value as jobParams does: strings as they are,
// everything else JSON.
func paramText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "" // schema defaults are plain values and always marshal
	}
	return string(b)
}
