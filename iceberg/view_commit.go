package iceberg

import (
	"encoding/json"
	"maps"
	"slices"
)

// ViewCommitInput is the body of POST …/views/{view}: requirements checked
// against the current metadata, then updates applied in order.
type ViewCommitInput struct {
	Requirements []json.RawMessage `json:"requirements"`
	Updates      []json.RawMessage `json:"updates"`
}

// viewRequirement is the one requirement views have: assert-view-uuid.
type viewRequirement struct {
	Type string  `json:"type"`
	UUID *string `json:"uuid"`
}

// viewUpdate is one update of a view commit; Action says which fields apply.
type viewUpdate struct {
	Action        string            `json:"action"`
	UUID          string            `json:"uuid"`
	FormatVersion int               `json:"format-version"`
	Schema        *Schema           `json:"schema"`
	Location      string            `json:"location"`
	Updates       map[string]string `json:"updates"`
	Removals      []string          `json:"removals"`
	ViewVersion   *ViewVersion      `json:"view-version"`
	VersionID     *int64            `json:"view-version-id"`
}

func parseViewCommit(in ViewCommitInput) ([]viewRequirement, []viewUpdate, error) {
	reqs := make([]viewRequirement, 0, len(in.Requirements))
	for i, raw := range in.Requirements {
		var q viewRequirement
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, nil, invalid("requirements", "requirement %d: %v", i, err)
		}
		if q.Type != "assert-view-uuid" {
			return nil, nil, invalid("requirements", "requirement %d: type %q is not a view requirement; views take assert-view-uuid", i, q.Type)
		}
		if q.UUID == nil {
			return nil, nil, invalid("requirements", "requirement %d (assert-view-uuid) needs \"uuid\"", i)
		}
		reqs = append(reqs, q)
	}
	ups := make([]viewUpdate, 0, len(in.Updates))
	for i, raw := range in.Updates {
		var u viewUpdate
		if err := json.Unmarshal(raw, &u); err != nil {
			return nil, nil, invalid("updates", "update %d: %v", i, err)
		}
		ups = append(ups, u)
	}
	return reqs, ups, nil
}

// viewBuilder applies updates to a copy of a view's metadata.
type viewBuilder struct {
	md    *viewMetadata
	nowMs int64
	// lastSchema and lastVersion are what -1 means in the next update: the
	// schema or version this commit added last (-1: none yet).
	lastSchema    int
	lastVersion   int64
	checkLocation func(string) error
}

func newViewBuilder(base *viewMetadata, nowMs int64, checkLocation func(string) error) *viewBuilder {
	return &viewBuilder{md: base.clone(), nowMs: nowMs, lastSchema: -1, lastVersion: -1, checkLocation: checkLocation}
}

func (b *viewBuilder) apply(i int, u viewUpdate) error {
	fail := func(format string, args ...any) error {
		return invalid("updates", "update %d (%s): "+format, append([]any{i, u.Action}, args...)...)
	}
	md := b.md
	switch u.Action {
	case "assign-uuid":
		if u.UUID == "" {
			return fail("needs uuid")
		}
		if md.ViewUUID != "" && u.UUID != md.ViewUUID {
			return fail("a view's uuid cannot change (it is %s)", md.ViewUUID)
		}
		md.ViewUUID = u.UUID
	case "upgrade-format-version":
		if u.FormatVersion != viewFormatVersion {
			return fail("view format version %d is not supported (only %d)", u.FormatVersion, viewFormatVersion)
		}
	case "add-schema":
		if u.Schema == nil {
			return fail("needs schema")
		}
		return b.addSchema(*u.Schema, fail)
	case "set-location":
		if u.Location == "" {
			return fail("needs location")
		}
		if err := b.checkLocation(u.Location); err != nil {
			return err
		}
		md.Location = u.Location
	case "set-properties":
		if md.Properties == nil {
			md.Properties = map[string]string{}
		}
		maps.Copy(md.Properties, u.Updates)
	case "remove-properties":
		for _, k := range u.Removals {
			delete(md.Properties, k)
		}
	case "add-view-version":
		if u.ViewVersion == nil {
			return fail("needs view-version")
		}
		return b.addVersion(*u.ViewVersion, fail)
	case "set-current-view-version":
		if u.VersionID == nil {
			return fail("needs view-version-id")
		}
		return b.setCurrent(*u.VersionID, fail)
	case "":
		return invalid("updates", "update %d has no action", i)
	default:
		return fail("not an update views take")
	}
	return nil
}

// addSchema adds a schema, reusing an existing one with the same fields.
func (b *viewBuilder) addSchema(s Schema, fail func(string, ...any) error) error {
	if err := checkViewSchema(s); err != nil {
		return fail("%v", err)
	}
	for _, have := range b.md.Schemas {
		if sameFields(have, s) {
			b.lastSchema = have.SchemaID
			return nil
		}
	}
	next := 0
	for _, have := range b.md.Schemas {
		next = max(next, have.SchemaID+1)
	}
	s.SchemaID = next
	b.md.Schemas = append(b.md.Schemas, s)
	b.lastSchema = next
	return nil
}

func sameFields(a, b Schema) bool {
	a.SchemaID, b.SchemaID = 0, 0
	ja, _ := json.Marshal(a) // plain data always marshals
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// addVersion adds a version with the next id, or reuses an identical one.
func (b *viewBuilder) addVersion(v ViewVersion, fail func(string, ...any) error) error {
	if v.SchemaID == -1 {
		if b.lastSchema < 0 {
			return fail("schema-id -1 means the schema this commit added, and it added none")
		}
		v.SchemaID = b.lastSchema
	}
	if _, ok := b.md.schema(v.SchemaID); !ok {
		return fail("schema-id %d is not a schema of the view", v.SchemaID)
	}
	if v.Summary == nil {
		v.Summary = map[string]string{}
	}
	if err := checkViewVersion(v); err != nil {
		return fail("%v", err)
	}
	for _, have := range b.md.Versions {
		if sameVersion(have, v) {
			b.lastVersion = have.VersionID
			return nil
		}
	}
	var next int64 = 1
	for _, have := range b.md.Versions {
		next = max(next, have.VersionID+1)
	}
	v.VersionID = next
	if v.TimestampMs == 0 {
		v.TimestampMs = b.nowMs
	}
	b.md.Versions = append(b.md.Versions, v)
	b.lastVersion = next
	return nil
}

// setCurrent makes a version current and logs the change.
func (b *viewBuilder) setCurrent(id int64, fail func(string, ...any) error) error {
	if id == -1 {
		if b.lastVersion < 0 {
			return fail("view-version-id -1 means the version this commit added, and it added none")
		}
		id = b.lastVersion
	}
	v, ok := b.md.version(id)
	if !ok {
		return fail("version %d is not a version of the view", id)
	}
	if b.md.CurrentVersionID == id && len(b.md.VersionLog) > 0 {
		return nil
	}
	b.md.CurrentVersionID = id
	b.md.VersionLog = append(b.md.VersionLog, ViewLogEntry{VersionID: id, TimestampMs: max(v.TimestampMs, b.nowMs)})
	return nil
}

// finish applies the history limit and checks the result as a whole.
func (b *viewBuilder) finish() (*viewMetadata, error) {
	limit, err := b.md.historyLimit()
	if err != nil {
		return nil, invalid("properties", "%v", err)
	}
	b.md.expireVersions(limit)
	if err := b.md.validate(); err != nil {
		return nil, invalid("updates", "the view after this commit: %v", err)
	}
	return b.md, nil
}

// schemaOf returns the schema of the view's current version.
func (m *viewMetadata) currentSchema() Schema {
	v, _ := m.version(m.CurrentVersionID)
	s, _ := m.schema(v.SchemaID)
	return s
}

// dialects lists the dialects of the current version, in the order given.
func (m *viewMetadata) dialects() []string {
	v, _ := m.version(m.CurrentVersionID)
	out := make([]string, 0, len(v.Representations))
	for _, r := range v.Representations {
		out = append(out, r.Dialect)
	}
	return slices.Clip(out)
}
