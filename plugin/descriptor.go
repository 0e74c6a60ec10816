package plugin

// Descriptor is what a worker says about one job type it offers: its names,
// its settings form and the scheduler settings it starts with. It is the
// plugin's own type; the protobuf message is converted at the channel's edge
// (convert.go), so callers never see generated code.
type Descriptor struct {
	JobType     string
	Version     string // when a worker advertises another, it is asked again
	DisplayName string
	Description string
	Sections    []FormSection
	Runtime     Runtime // defaults filled where the worker left zero
}

// FormSection groups fields of a settings form.
type FormSection struct {
	Name        string
	Title       string
	Description string
	Fields      []FormField
}

// FieldType is the kind of value a form field holds.
type FieldType string

// The field types a worker can declare; an unknown type reads as a string.
const (
	FieldString     FieldType = "string"
	FieldInt        FieldType = "int"
	FieldFloat      FieldType = "float"
	FieldBool       FieldType = "bool"
	FieldSelect     FieldType = "select"      // value must be one of Options
	FieldDuration   FieldType = "duration"    // "90s", "15m", "1h30m" or whole seconds
	FieldStringList FieldType = "string_list" // one item per line or a JSON array
)

// FormField is one setting.
type FormField struct {
	Name        string // key in the settings JSON
	Label       string
	Help        string
	Type        FieldType
	Widget      string   // hint: "text", "number", "checkbox", "select", "textarea", "password"
	Min, Max    *float64 // int/float: value; duration: seconds; string/list: length/count; nil = no bound
	Options     []SelectOption
	Pattern     string // RE2 a string value (each item of a list) must match fully
	Required    bool
	Default     string // as the form would submit it
	VisibleWhen *VisibleWhen
}

// SelectOption is one choice of a select field.
type SelectOption struct {
	Value string
	Label string
}

// VisibleWhen shows a field only while another field equals a value.
type VisibleWhen struct {
	Field  string
	Equals string
}

// Fields lists every field of every section, in order.
func (d Descriptor) Fields() []FormField {
	var out []FormField
	for _, s := range d.Sections {
		out = append(out, s.Fields...)
	}
	return out
}

// JobParam defines one parameter of a submitted job (JobSpec parameters),
// so a worker reads parameters by the console's definitions.
type JobParam struct {
	Name     string
	Type     FieldType // int, float, bool, string, select or string_list
	Required bool
	Min      *float64 // int: smallest value; nil = no bound
	Options  []string // select: the values, case-sensitive
	// Default in the encoding of job parameters (strings as they are,
	// everything else JSON); "" = none, the engine decides.
	Default string
	Pattern string // a string value must match it fully
	// OnlyField/OnlyValues: the parameter applies only while OnlyField has
	// one of OnlyValues.
	OnlyField  string
	OnlyValues []string
	Help       string
}
