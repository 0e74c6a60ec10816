package handlers

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/views"
)

// icebergTypes are the primitive types the schema builder offers; "decimal"
// takes a precision and scale from the row.
var icebergTypes = []string{"boolean", "int", "long", "float", "double", "decimal", "date", "timestamp", "timestamptz", "string", "uuid", "binary"}

// maxSchemaColumns bounds one form: a hand-built schema past this is a job
// for an engine's DDL, and the cap keeps a crafted POST from building a huge
// metadata file.
const maxSchemaColumns = 500

// maxColumnNameLen matches the catalog's longest name.
const maxColumnNameLen = 255

// maxBucketN bounds bucket[N]: more buckets than this only makes tiny files.
const maxBucketN = 1024

// maxDecimalPrecision is Iceberg's own limit for decimal(p,s).
const maxDecimalPrecision = 38

// columnNameRe is what every engine can name without quoting: letters,
// digits and _, not starting with a digit. Dots are refused because Iceberg
// paths use them to reach nested fields.
var columnNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// icebergCreateForm is the create-table form as submitted.
type icebergCreateForm struct {
	Name       string
	Columns    []views.IcebergColumnInput
	Partition  string
	PartSource string
	PartN      string
}

// parseIcebergCreateForm reads the parallel col_* lists into rows. Every row
// submits all five inputs (the decimal ones even when hidden), so index i of
// each list is row i.
func parseIcebergCreateForm(f url.Values) icebergCreateForm {
	out := icebergCreateForm{
		Name:      strings.TrimSpace(f.Get("name")),
		Partition: strings.TrimSpace(f.Get("part_transform")), PartSource: strings.TrimSpace(f.Get("part_source")),
		PartN: strings.TrimSpace(f.Get("part_n")),
	}
	names, types := f["col_name"], f["col_type"]
	at := func(list []string, i int) string {
		if i < len(list) {
			return strings.TrimSpace(list[i])
		}
		return ""
	}
	n := min(max(len(names), len(types)), maxSchemaColumns+1)
	for i := range n {
		out.Columns = append(out.Columns, views.IcebergColumnInput{
			Key: strconv.Itoa(i), Name: at(names, i), Type: at(types, i),
			Precision: at(f["col_precision"], i), Scale: at(f["col_scale"], i),
			Required: at(f["col_required"], i) == "yes",
		})
	}
	return out
}

// icebergCreateSpec is a validated form: what the REST create request needs.
type icebergCreateSpec struct {
	Name      string
	Schema    iceberg.Schema
	Partition []icebergPartField
}

type icebergPartField struct {
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

// validate checks the form as the catalog would, and more strictly where a
// person is typing: every problem is reported at its field.
func (f icebergCreateForm) validate() (icebergCreateSpec, views.FieldErrors) {
	errs := views.FieldErrors{}
	spec := icebergCreateSpec{Name: f.Name, Schema: iceberg.Schema{SchemaID: 0}}
	if err := catalog.ValidateTableName(f.Name); err != nil {
		errs["name"] = sentence(err, err.Error())
	}
	switch {
	case len(f.Columns) == 0:
		errs["columns"] = "Add at least one column: a table needs a schema."
	case len(f.Columns) > maxSchemaColumns:
		errs["columns"] = fmt.Sprintf("At most %d columns can be built here; create wider tables from an engine.", maxSchemaColumns)
	}
	seen := map[string]string{} // lower-cased name → first row's key
	types := map[string]string{}
	ids := map[string]int{}
	for i, c := range f.Columns {
		key := "col-" + c.Key
		switch {
		case c.Name == "":
			errs[key+"-name"] = "Name this column, or remove the row."
		case len(c.Name) > maxColumnNameLen:
			errs[key+"-name"] = fmt.Sprintf("A column name is at most %d characters.", maxColumnNameLen)
		case !columnNameRe.MatchString(c.Name):
			errs[key+"-name"] = "Use letters, digits and _ only, not starting with a digit."
		default:
			if _, dup := seen[strings.ToLower(c.Name)]; dup {
				errs[key+"-name"] = fmt.Sprintf("Column %s appears twice (names are compared regardless of case).", c.Name)
			} else {
				seen[strings.ToLower(c.Name)] = c.Key
			}
		}
		typ, msg := icebergColumnType(c)
		if msg != "" {
			errs[key+"-type"] = msg
		}
		if _, taken := ids[c.Name]; !taken {
			ids[c.Name] = i + 1
			types[c.Name] = typ
		}
		spec.Schema.Fields = append(spec.Schema.Fields, iceberg.Field{ID: i + 1, Name: c.Name, Required: c.Required, Type: iceberg.Type{Primitive: typ}})
	}
	part, field, msg := f.partition(ids, types, seen)
	if msg != "" {
		errs[field] = msg
	} else if part != nil {
		spec.Partition = []icebergPartField{*part}
	}
	return spec, errs
}

// icebergColumnType is a row's Iceberg type name, or why it is not one.
func icebergColumnType(c views.IcebergColumnInput) (string, string) {
	if c.Type == "decimal" {
		p, perr := strconv.Atoi(c.Precision)
		s, serr := strconv.Atoi(c.Scale)
		if c.Scale == "" {
			s, serr = 0, nil
		}
		switch {
		case perr != nil || p < 1 || p > maxDecimalPrecision:
			return "", fmt.Sprintf("A decimal needs a precision from 1 to %d.", maxDecimalPrecision)
		case serr != nil || s < 0 || s > p:
			return "", fmt.Sprintf("A decimal's scale is from 0 to its precision (%d).", p)
		}
		return fmt.Sprintf("decimal(%d,%d)", p, s), ""
	}
	for _, t := range icebergTypes {
		if t == c.Type {
			return t, ""
		}
	}
	return "", "Pick a type from the list."
}

// partition checks the partition choice against the columns. It returns the
// field, or the form field to blame and why.
func (f icebergCreateForm) partition(ids map[string]int, types map[string]string, names map[string]string) (*icebergPartField, string, string) {
	tr := f.Partition
	if tr == "" || tr == "none" {
		return nil, "", ""
	}
	if tr != "identity" && tr != "bucket" && tr != "day" {
		return nil, "part_transform", "Pick none, identity, bucket or day."
	}
	if f.PartSource == "" {
		return nil, "part_source", "Name the column to partition by."
	}
	id, ok := ids[f.PartSource]
	if !ok {
		return nil, "part_source", fmt.Sprintf("There is no column %s in the schema above; the source must be one of its columns, spelled the same.", f.PartSource)
	}
	typ := types[f.PartSource]
	field := icebergPartField{SourceID: id, FieldID: 1000, Name: f.PartSource, Transform: "identity"}
	switch tr {
	case "day":
		if typ != "date" && typ != "timestamp" && typ != "timestamptz" {
			return nil, "part_source", fmt.Sprintf("day() needs a date or timestamp column; %s is %s.", f.PartSource, icebergDash(typ))
		}
		field.Name, field.Transform = f.PartSource+"_day", "day"
	case "bucket":
		n, err := strconv.Atoi(f.PartN)
		if err != nil || n < 1 || n > maxBucketN {
			return nil, "part_n", fmt.Sprintf("The number of buckets is a whole number from 1 to %d.", maxBucketN)
		}
		if typ == "boolean" || typ == "float" || typ == "double" {
			return nil, "part_source", fmt.Sprintf("bucket[N] cannot hash a %s column; pick another column or identity.", typ)
		}
		field.Name, field.Transform = f.PartSource+"_bucket", fmt.Sprintf("bucket[%d]", n)
	}
	if field.Name != f.PartSource {
		if _, clash := names[strings.ToLower(field.Name)]; clash {
			return nil, "part_source", fmt.Sprintf("The partition field would be named %s, which a column already uses; rename that column.", field.Name)
		}
	}
	return &field, "", ""
}
