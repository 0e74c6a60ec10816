package tasks

import (
	"context"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/form"
	"github.com/floe/floe/observe"
)

// Form is a task type's parameters as the console offers them for one
// table: the schema's fields, with the values the engine fixes shown as
// fixed and an index task's column offered from the table's schema.
type Form struct {
	Type   Type
	Op     string
	Title  string
	Help   string
	Fields []form.Field
	// Unavailable says why the table cannot take this task (no column
	// fits); the form is then not offered.
	Unavailable string
}

// engineFixed are the task parameters the bundled Lance worker (LanceDB 0.39
// optimize()) can only run at the engine's value: the console's form shows
// that value read-only with the reason, and refuses another, instead of
// queueing a job the worker fails with the same reason. The task API keeps
// the contract's full parameter set (a client written for it sends these),
// so there the worker's refusal is the answer. The sentences mirror
// workers/lance/lib/job_*.mjs refusals (TestEngineFixedMatchesWorker keeps
// the two lists equal).
var engineFixed = map[Type]map[string]string{
	TypeCompact: {
		"target_rows_per_fragment":        "LanceDB 0.39 optimize() always compacts to 1048576 rows per fragment.",
		"max_rows_per_group":              "LanceDB 0.39 optimize() always writes groups of 1024 rows.",
		"max_bytes_per_file":              "LanceDB 0.39 optimize() uses the engine's default file size.",
		"materialize_deletions":           "LanceDB 0.39 optimize() always materializes deletions past the threshold.",
		"materialize_deletions_threshold": "LanceDB 0.39 optimize() always uses 0.1.",
		"compaction_mode":                 "LanceDB 0.39 optimize() only re-encodes.",
	},
	TypeOptimizeIndices: {
		"num_indices_to_merge": "LanceDB 0.39 optimize() merges new data into one delta with its defaults.",
		"retrain":              "LanceDB 0.39 optimize() cannot retrain an index; rebuild it with a create index task and Replace.",
	},
}

// EngineFixed lists, per task type, the parameters the console shows fixed
// because the bundled engine runs only their default (for the test that
// keeps them equal to the worker's refusals).
func EngineFixed() map[Type]map[string]string { return engineFixed }

// Forms are the Maintenance tab's forms for a table, one per task type.
func (s *Service) Forms(table catalog.Table) []Form {
	schema, observed := s.schema(table.ID)
	out := make([]Form, 0, len(schemas))
	for _, sc := range schemas {
		fields, unavailable := formFields(sc, schema, observed)
		out = append(out, Form{Type: sc.Type, Op: sc.Op, Title: sc.Title, Help: sc.Help, Fields: fields, Unavailable: unavailable})
	}
	return out
}

// SubmitForm is Submit for the console's form: its text is read and
// validated by the fields Forms offers (the engine's fixed values refused
// when changed), then checked and stored exactly as an API submission.
func (s *Service) SubmitForm(ctx context.Context, table catalog.Table, typ Type, text map[string]string) (Task, error) {
	sc, err := schemaOf(typ)
	if err != nil {
		return Task{}, err
	}
	schema, observed := s.schema(table.ID)
	fields, _ := formFields(sc, schema, observed)
	params, err := validateText(sc, fields, text)
	if err != nil {
		return Task{}, err
	}
	return s.submit(ctx, table, typ, params, schema, observed)
}

// formFields are a schema's fields as the console offers them for a table.
func formFields(sc Schema, schema []observe.Field, observed bool) ([]form.Field, string) {
	fields := make([]form.Field, len(sc.Fields))
	unavailable := ""
	for i, f := range sc.Fields {
		if why, ok := engineFixed[sc.Type][f.Name]; ok {
			f.Fixed = why
		}
		if f.Name == "column" && (sc.Type == TypeScalarIndex || sc.Type == TypeVectorIndex) {
			if !observed {
				f.Help = "No worker has described this table yet, so its columns are not known: type the column name."
			} else {
				f.Options, f.Narrows = columnOptions(schema, sc.Type), "index_type"
				f.Help = "Columns of this table that this index can cover; the index types offered follow the column's type."
				if len(f.Options) == 0 {
					what := "no column a scalar index covers (numbers, strings, dates, booleans or lists)"
					if sc.Type == TypeVectorIndex {
						what = "no vector column (a fixed-size list of floats)"
					}
					unavailable = "This table has " + what + ", so there is nothing to index."
				}
			}
		}
		fields[i] = f
	}
	return fields, unavailable
}

// schema is the table's columns as a worker last described them; observed
// is false when none has (or the service reads no observations).
func (s *Service) schema(tableID string) ([]observe.Field, bool) {
	if s.schemas == nil {
		return nil, false
	}
	st, ok := s.schemas.Stats(tableID, catalog.FormatLance)
	if !ok || st.Schema == nil {
		return nil, false
	}
	return st.Schema, true
}
