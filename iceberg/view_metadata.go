package iceberg

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file is the Iceberg view metadata JSON (view spec, format version 1):
// a view is a list of versions, each a set of SQL texts (one per dialect)
// over a schema, plus the log of which version was current when.

// viewFormatVersion is the only view format version the spec defines.
const viewFormatVersion = 1

const (
	// maxViewRepresentations bounds the SQL texts of one version: there is
	// one per engine dialect, and engines number in the tens.
	maxViewRepresentations = 64
	// defaultViewHistory is how many versions a view keeps when its
	// version.history.num-entries property does not say (the spec's default).
	defaultViewHistory = 10
	// viewHistoryProperty names the property that sets how many versions a
	// view keeps.
	viewHistoryProperty = "version.history.num-entries"
)

// viewMetadata is one view metadata file.
type viewMetadata struct {
	ViewUUID         string            `json:"view-uuid"`
	FormatVersion    int               `json:"format-version"`
	Location         string            `json:"location"`
	CurrentVersionID int64             `json:"current-version-id"`
	Versions         []ViewVersion     `json:"versions"`
	VersionLog       []ViewLogEntry    `json:"version-log"`
	Schemas          []Schema          `json:"schemas"`
	Properties       map[string]string `json:"properties,omitempty"`
}

// ViewVersion is one version of a view: its SQL per dialect and the schema
// the SQL produces.
type ViewVersion struct {
	VersionID        int64                `json:"version-id"`
	TimestampMs      int64                `json:"timestamp-ms"`
	SchemaID         int                  `json:"schema-id"`
	Summary          map[string]string    `json:"summary"`
	Representations  []ViewRepresentation `json:"representations"`
	DefaultCatalog   string               `json:"default-catalog,omitempty"`
	DefaultNamespace []string             `json:"default-namespace"`
}

// ViewRepresentation is the SQL text of a version in one dialect.
type ViewRepresentation struct {
	Type    string `json:"type"`
	SQL     string `json:"sql"`
	Dialect string `json:"dialect"`
}

// ViewLogEntry records that a version became current.
type ViewLogEntry struct {
	VersionID   int64 `json:"version-id"`
	TimestampMs int64 `json:"timestamp-ms"`
}

func (m *viewMetadata) encode() ([]byte, error) {
	if m.Versions == nil {
		m.Versions = []ViewVersion{}
	}
	if m.VersionLog == nil {
		m.VersionLog = []ViewLogEntry{}
	}
	return json.Marshal(m)
}

func (m *viewMetadata) clone() *viewMetadata {
	c := *m
	c.Versions = slices.Clone(m.Versions)
	c.VersionLog = slices.Clone(m.VersionLog)
	c.Schemas = slices.Clone(m.Schemas)
	c.Properties = maps.Clone(m.Properties)
	return &c
}

func (m *viewMetadata) version(id int64) (ViewVersion, bool) {
	for _, v := range m.Versions {
		if v.VersionID == id {
			return v, true
		}
	}
	return ViewVersion{}, false
}

func (m *viewMetadata) schema(id int) (Schema, bool) {
	for _, s := range m.Schemas {
		if s.SchemaID == id {
			return s, true
		}
	}
	return Schema{}, false
}

// validate checks a metadata file a client asked floe to register, with
// the rules floe itself keeps when it writes one.
func (m *viewMetadata) validate() error {
	switch {
	case m.FormatVersion != viewFormatVersion:
		return fmt.Errorf("view format-version %d is not supported (only %d)", m.FormatVersion, viewFormatVersion)
	case m.ViewUUID == "":
		return fmt.Errorf("view-uuid is missing")
	case m.Location == "":
		return fmt.Errorf("location is missing")
	case len(m.Schemas) == 0:
		return fmt.Errorf("the view has no schema")
	}
	schemas := map[int]bool{}
	for _, s := range m.Schemas {
		if schemas[s.SchemaID] {
			return fmt.Errorf("schema-id %d appears twice", s.SchemaID)
		}
		schemas[s.SchemaID] = true
		if err := checkViewSchema(s); err != nil {
			return err
		}
	}
	ids := map[int64]bool{}
	for _, v := range m.Versions {
		if ids[v.VersionID] {
			return fmt.Errorf("version-id %d appears twice", v.VersionID)
		}
		ids[v.VersionID] = true
		if !schemas[v.SchemaID] {
			return fmt.Errorf("version %d names schema-id %d, which the view does not have", v.VersionID, v.SchemaID)
		}
		if err := checkViewVersion(v); err != nil {
			return fmt.Errorf("version %d: %w", v.VersionID, err)
		}
	}
	if !ids[m.CurrentVersionID] {
		return fmt.Errorf("current-version-id %d is not among the versions", m.CurrentVersionID)
	}
	return nil
}

// checkViewSchema applies the table schema limits and refuses repeated field ids.
func checkViewSchema(s Schema) error {
	if err := checkSchemaLimits(s.Fields); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if err := collectIDs(Type{Struct: s.Fields}, map[int]bool{}); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return nil
}

// checkViewVersion checks one version's representations: at least one, each
// a SQL text with a dialect, one per dialect (dialects compare without case).
func checkViewVersion(v ViewVersion) error {
	if len(v.Representations) == 0 {
		return fmt.Errorf("a view version needs at least one representation")
	}
	if len(v.Representations) > maxViewRepresentations {
		return fmt.Errorf("a view version holds at most %d representations (one per SQL dialect)", maxViewRepresentations)
	}
	if v.DefaultNamespace == nil {
		return fmt.Errorf("default-namespace is required (an empty list means none)")
	}
	seen := map[string]bool{}
	for i, r := range v.Representations {
		if r.Type != "sql" {
			return fmt.Errorf("representation %d has type %q; only sql representations are defined", i, r.Type)
		}
		if strings.TrimSpace(r.SQL) == "" || r.Dialect == "" {
			return fmt.Errorf("representation %d needs sql and dialect", i)
		}
		d := strings.ToLower(r.Dialect)
		if seen[d] {
			return fmt.Errorf("dialect %s appears twice; a version holds one SQL text per dialect", r.Dialect)
		}
		seen[d] = true
	}
	return nil
}

// sameVersion says whether two versions are the same but for id and time:
// adding such a version again reuses the old one, as the spec asks.
func sameVersion(a, b ViewVersion) bool {
	a.VersionID, b.VersionID = 0, 0
	a.TimestampMs, b.TimestampMs = 0, 0
	ja, _ := json.Marshal(a) // plain data always marshals
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// historyLimit reads version.history.num-entries (at least 1).
func (m *viewMetadata) historyLimit() (int, error) {
	v, ok := m.Properties[viewHistoryProperty]
	if !ok {
		return defaultViewHistory, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s must be a whole number of at least 1, not %q", viewHistoryProperty, v)
	}
	return n, nil
}

// expireVersions keeps the newest versions up to the history limit (the
// current one always) and drops log entries older than the oldest gap, so
// the log never names a version the file no longer holds.
func (m *viewMetadata) expireVersions(limit int) {
	if len(m.Versions) <= limit {
		return
	}
	sorted := slices.Clone(m.Versions)
	slices.SortFunc(sorted, func(a, b ViewVersion) int { return int(b.VersionID - a.VersionID) })
	keep := map[int64]bool{m.CurrentVersionID: true}
	for _, v := range sorted {
		if len(keep) >= limit {
			break
		}
		keep[v.VersionID] = true
	}
	m.Versions = slices.DeleteFunc(m.Versions, func(v ViewVersion) bool { return !keep[v.VersionID] })
	cut := 0
	for i, e := range m.VersionLog {
		if !keep[e.VersionID] {
			cut = i + 1
		}
	}
	m.VersionLog = m.VersionLog[cut:]
}
