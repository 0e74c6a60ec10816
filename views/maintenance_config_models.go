package views

// MaintConfigView is the Maintenance tab's configuration section: per kind
// of automatic maintenance that applies to the table's format, the
// effective setting and where each value comes from, and (to whoever may
// maintain the table) a form for the table's own setting.
type MaintConfigView struct {
	URL     string // POST here to save or reset one kind
	CanEdit bool
	// DestructiveOn says whether the bucket schedules maintenance that
	// deletes data; SafetyURL is where its managers change that.
	DestructiveOn bool
	SafetyURL     string
	Kinds         []MaintKindView
}

// MaintKindView is one kind of maintenance for the table.
type MaintKindView struct {
	Kind        string // the S3 Tables name, e.g. icebergCompaction
	Title       string
	JobType     string // the job type it governs, e.g. iceberg_compact
	Destructive bool
	// BucketLevel: set per bucket (the table shows what it gets and
	// cannot set its own).
	BucketLevel bool
	Enabled     bool
	EnabledFrom string // "this table", "the bucket", "every bucket" or "default"
	Settings    []MaintSettingView
	Own         bool   // the table has a setting of its own (Reset to inherit applies)
	Note        string // what the destructive opt-in means for this kind, or another caveat
	Fields      []FieldView
	Errors      FieldErrors
	Notice      string // an error that belongs to no one field
}

// MaintSettingView is one effective setting and where it comes from.
type MaintSettingView struct {
	Name, Label, Value string
	From               string // "this table", "the bucket", "every bucket" or "the job type's default"
	FromKey            string // table, bucket, all, jobtype (for tests and styling)
}
