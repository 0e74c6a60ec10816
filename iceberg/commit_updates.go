package iceberg

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// update is one metadata change of a commit. Fields are pointers where the
// spec makes them required, so a missing one is told apart from zero.
type update struct {
	Action        string            `json:"action"`
	UUID          *string           `json:"uuid"`
	FormatVersion *int              `json:"format-version"`
	Schema        *Schema           `json:"schema"`
	LastColumnID  *int              `json:"last-column-id"`
	SchemaID      *int              `json:"schema-id"`
	Spec          *UnboundSpec      `json:"spec"`
	SpecID        *int              `json:"spec-id"`
	SortOrder     *SortOrder        `json:"sort-order"`
	SortOrderID   *int              `json:"sort-order-id"`
	Snapshot      *Snapshot         `json:"snapshot"`
	RefName       *string           `json:"ref-name"`
	RefType       *string           `json:"type"`
	SnapshotID    *int64            `json:"snapshot-id"`
	MaxRefAgeMs   *int64            `json:"max-ref-age-ms"`
	MaxSnapAgeMs  *int64            `json:"max-snapshot-age-ms"`
	MinSnapshots  *int              `json:"min-snapshots-to-keep"`
	SnapshotIDs   []int64           `json:"snapshot-ids"`
	Location      *string           `json:"location"`
	Updates       map[string]string `json:"updates"`
	Updated       map[string]string `json:"updated"` // older clients
	Removals      []string          `json:"removals"`
	Removed       []string          `json:"removed"` // older clients
	SpecIDs       []int             `json:"spec-ids"`
	SchemaIDs     []int             `json:"schema-ids"`
	Statistics    json.RawMessage   `json:"statistics"`
	PartStats     json.RawMessage   `json:"partition-statistics"`
}

// UnboundSpec is a partition spec as a client sends it: ids optional.
type UnboundSpec struct {
	SpecID *int                    `json:"spec-id"`
	Fields []UnboundPartitionField `json:"fields"`
}

// UnboundPartitionField is one field of an UnboundSpec; the catalog assigns
// a missing field id.
type UnboundPartitionField struct {
	SourceID  *int   `json:"source-id"`
	FieldID   *int   `json:"field-id"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

// required lists each action's mandatory fields, as the spec defines them.
var required = map[string][]string{
	"assign-uuid":                 {"uuid"},
	"upgrade-format-version":      {"format-version"},
	"add-schema":                  {"schema"},
	"set-current-schema":          {"schema-id"},
	"add-spec":                    {"spec"},
	"set-default-spec":            {"spec-id"},
	"add-sort-order":              {"sort-order"},
	"set-default-sort-order":      {"sort-order-id"},
	"add-snapshot":                {"snapshot"},
	"set-snapshot-ref":            {"ref-name", "type", "snapshot-id"},
	"remove-snapshots":            {"snapshot-ids"},
	"remove-snapshot-ref":         {"ref-name"},
	"set-location":                {"location"},
	"set-properties":              {"updates"},
	"remove-properties":           {"removals"},
	"remove-partition-specs":      {"spec-ids"},
	"remove-schemas":              {"schema-ids"},
	"set-statistics":              {"statistics"},
	"remove-statistics":           {"snapshot-id"},
	"set-partition-statistics":    {"partition-statistics"},
	"remove-partition-statistics": {"snapshot-id"},
}

func parseUpdates(raw []json.RawMessage) ([]update, error) {
	out := make([]update, 0, len(raw))
	for i, r := range raw {
		var u update
		if err := json.Unmarshal(r, &u); err != nil {
			return nil, invalid("updates", "update %d: %v", i, err)
		}
		if u.Updates == nil {
			u.Updates = u.Updated
		}
		if u.Removals == nil {
			u.Removals = u.Removed
		}
		fields, ok := required[u.Action]
		if !ok {
			if u.Action == "" {
				return nil, invalid("updates", "update %d has no action", i)
			}
			return nil, invalid("updates", "update %d: unknown or unsupported action %q", i, u.Action)
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(r, &obj)
		for _, f := range fields {
			v, present := obj[f]
			if f == "updates" && !present {
				v, present = obj["updated"]
			}
			if f == "removals" && !present {
				v, present = obj["removed"]
			}
			if !present || string(v) == "null" {
				return nil, invalid("updates", "update %d (%s) needs %q", i, u.Action, f)
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// builder applies updates to a copy of the metadata, remembering what this
// commit added so "-1" (last added) and snapshot-log times resolve.
type builder struct {
	md             *tableMetadata
	nowMs          int64
	lastSchema     *int
	lastSpec       *int
	lastOrder      *int
	addedSnapshots map[int64]int64 // id → timestamp
	checkLocation  func(string) error
	// creating is true for a staged create's commit, which builds the
	// table from empty metadata and may say where it lives.
	creating bool
}

func (b *builder) apply(i int, u update) error {
	md := b.md
	fail := func(format string, args ...any) error {
		return invalid("updates", "update %d (%s): %s", i, u.Action, fmt.Sprintf(format, args...))
	}
	switch u.Action {
	case "assign-uuid":
		if md.TableUUID != "" && md.TableUUID != *u.UUID {
			return fail("the table already has uuid %s", md.TableUUID)
		}
		md.TableUUID = *u.UUID
	case "upgrade-format-version":
		v := *u.FormatVersion
		if v > maxFormatVersion {
			return fail("format version %d is not supported; the newest is %d", v, maxFormatVersion)
		}
		// A staged create starts from empty metadata at the default
		// version; its commit names the version it wants, older or newer.
		creating := len(md.Schemas) == 0 // a table always has a schema
		if v < 1 || (v < md.FormatVersion && !creating) {
			return fail("cannot downgrade format version %d to %d", md.FormatVersion, v)
		}
		md.FormatVersion = v
		startRowLineage(md)
	case "add-schema":
		return b.addSchema(*u.Schema, u.LastColumnID, fail)
	case "set-current-schema":
		id := *u.SchemaID
		if id == -1 {
			if b.lastSchema == nil {
				return fail("schema -1 means the last added schema, and this commit added none")
			}
			id = *b.lastSchema
		}
		if _, ok := md.schema(id); !ok {
			return fail("no schema with id %d", id)
		}
		md.CurrentSchemaID = id
	case "add-spec":
		return b.addSpec(*u.Spec, fail)
	case "set-default-spec":
		id := *u.SpecID
		if id == -1 {
			if b.lastSpec == nil {
				return fail("spec -1 means the last added spec, and this commit added none")
			}
			id = *b.lastSpec
		}
		if _, ok := md.spec(id); !ok {
			return fail("no partition spec with id %d", id)
		}
		md.DefaultSpecID = id
	case "add-sort-order":
		return b.addSortOrder(*u.SortOrder, fail)
	case "set-default-sort-order":
		id := *u.SortOrderID
		if id == -1 {
			if b.lastOrder == nil {
				return fail("sort order -1 means the last added order, and this commit added none")
			}
			id = *b.lastOrder
		}
		if _, ok := md.sortOrder(id); !ok {
			return fail("no sort order with id %d", id)
		}
		md.DefaultSortOrderID = id
	case "add-snapshot":
		return b.addSnapshot(*u.Snapshot, fail)
	case "set-snapshot-ref":
		return b.setRef(*u.RefName, u, fail)
	case "remove-snapshot-ref":
		delete(md.Refs, *u.RefName)
		if *u.RefName == mainBranch {
			md.CurrentSnapshotID = -1
		}
	case "remove-snapshots":
		b.removeSnapshots(u.SnapshotIDs)
	case "set-location":
		return b.setLocation(*u.Location, fail)
	case "set-properties":
		for k, v := range u.Updates {
			md.Properties[k] = v
		}
	case "remove-properties":
		for _, k := range u.Removals {
			delete(md.Properties, k)
		}
	case "remove-partition-specs":
		for _, id := range u.SpecIDs {
			if id == md.DefaultSpecID {
				return fail("cannot remove the default spec %d", id)
			}
		}
		md.PartitionSpecs = slices.DeleteFunc(md.PartitionSpecs, func(s PartitionSpec) bool { return slices.Contains(u.SpecIDs, s.SpecID) })
	case "remove-schemas":
		for _, id := range u.SchemaIDs {
			if id == md.CurrentSchemaID {
				return fail("cannot remove the current schema %d", id)
			}
		}
		md.Schemas = slices.DeleteFunc(md.Schemas, func(s Schema) bool { return slices.Contains(u.SchemaIDs, s.SchemaID) })
	case "set-statistics":
		return setStats(&md.Statistics, u.Statistics, fail)
	case "remove-statistics":
		md.Statistics = removeStats(md.Statistics, *u.SnapshotID)
	case "set-partition-statistics":
		return setStats(&md.PartitionStatistics, u.PartStats, fail)
	case "remove-partition-statistics":
		md.PartitionStatistics = removeStats(md.PartitionStatistics, *u.SnapshotID)
	}
	return nil
}

func (b *builder) addSnapshot(s Snapshot, fail func(string, ...any) error) error {
	md := b.md
	if _, ok := md.snapshot(s.SnapshotID); ok {
		return fail("snapshot %d already exists", s.SnapshotID)
	}
	if md.FormatVersion >= 2 && s.ParentSnapshotID != nil && s.SequenceNumber <= md.LastSequenceNumber {
		return fail("sequence number %d is not after the table's last sequence number %d", s.SequenceNumber, md.LastSequenceNumber)
	}
	if s.ManifestList == "" && len(s.Manifests) == 0 {
		return fail("snapshot %d has no manifest list", s.SnapshotID)
	}
	if s.ManifestList != "" && !within(s.ManifestList, md.Location) {
		return fail("manifest list %q is outside the table location %q", s.ManifestList, md.Location)
	}
	if s.Summary == nil || s.Summary["operation"] == "" {
		return fail("snapshot %d needs a summary with an operation", s.SnapshotID)
	}
	if err := assignRowIDs(md, s); err != nil {
		return fail("snapshot %d: %v", s.SnapshotID, err)
	}
	md.Snapshots = append(md.Snapshots, s)
	md.LastSequenceNumber = max(md.LastSequenceNumber, s.SequenceNumber)
	md.LastUpdatedMs = s.TimestampMs
	b.addedSnapshots[s.SnapshotID] = s.TimestampMs
	return nil
}

// setLocation applies set-location. A staged create may name where the
// table lives (the catalog then keeps it apart from every other table when
// the entry is made). An existing table cannot move: floe keeps one
// location per table, and purge, orphan removal and the overlap rule all
// work on it, so metadata pointing elsewhere would put the table's new
// files where none of them look (or inside another table's directory).
// Naming the current location again is a no-op.
func (b *builder) setLocation(loc string, fail func(string, ...any) error) error {
	md := b.md
	if !b.creating {
		if within(loc, md.Location) && within(md.Location, loc) {
			return nil
		}
		return fail("a table cannot move from %s: floe keeps its files under the one location it was created at; create or register a table at %s instead", md.Location, loc)
	}
	if err := b.checkLocation(loc); err != nil {
		return fail("%v", err)
	}
	md.Location = loc
	return nil
}

func (b *builder) setRef(name string, u update, fail func(string, ...any) error) error {
	md := b.md
	typ := *u.RefType
	if typ != "branch" && typ != "tag" {
		return fail("ref type must be branch or tag, not %q", typ)
	}
	maxRefAge, err := retention("max-ref-age-ms", u.MaxRefAgeMs)
	if err != nil {
		return fail("%v", err)
	}
	maxSnapAge, err := retention("max-snapshot-age-ms", u.MaxSnapAgeMs)
	if err != nil {
		return fail("%v", err)
	}
	var minSnaps *int
	if u.MinSnapshots != nil {
		n := int64(*u.MinSnapshots)
		p, err := retention("min-snapshots-to-keep", &n)
		if err != nil {
			return fail("%v", err)
		}
		if p != nil {
			v := int(*p)
			minSnaps = &v
		}
	}
	if typ == "tag" && (maxSnapAge != nil || minSnaps != nil) {
		return fail("tag %q: a tag keeps no snapshots but its own, so min-snapshots-to-keep and max-snapshot-age-ms are for branches only", name)
	}
	id := *u.SnapshotID
	if _, ok := md.snapshot(id); !ok {
		return fail("no snapshot with id %d", id)
	}
	if name == mainBranch && typ != "branch" {
		return fail("main must be a branch")
	}
	md.Refs[name] = SnapshotRef{SnapshotID: id, Type: typ, MaxRefAgeMs: maxRefAge, MaxSnapshotAgeMs: maxSnapAge, MinSnapshotsToKeep: minSnaps}
	if name == mainBranch && md.CurrentSnapshotID != id {
		ts, added := b.addedSnapshots[id]
		if !added {
			ts = b.nowMs
		}
		md.CurrentSnapshotID = id
		md.SnapshotLog = append(md.SnapshotLog, SnapshotLogEntry{TimestampMs: ts, SnapshotID: id})
		md.LastUpdatedMs = max(md.LastUpdatedMs, ts)
	}
	return nil
}

func (b *builder) removeSnapshots(ids []int64) {
	md := b.md
	gone := func(id int64) bool { return slices.Contains(ids, id) }
	md.Snapshots = slices.DeleteFunc(md.Snapshots, func(s Snapshot) bool { return gone(s.SnapshotID) })
	md.SnapshotLog = slices.DeleteFunc(md.SnapshotLog, func(e SnapshotLogEntry) bool { return gone(e.SnapshotID) })
	for name, r := range md.Refs {
		if gone(r.SnapshotID) {
			delete(md.Refs, name)
			if name == mainBranch {
				md.CurrentSnapshotID = -1
			}
		}
	}
	for _, id := range ids {
		md.Statistics = removeStats(md.Statistics, id)
		md.PartitionStatistics = removeStats(md.PartitionStatistics, id)
	}
}

func statsSnapshot(raw json.RawMessage) (int64, bool) {
	var s struct {
		SnapshotID *int64 `json:"snapshot-id"`
	}
	if json.Unmarshal(raw, &s) != nil || s.SnapshotID == nil {
		return 0, false
	}
	return *s.SnapshotID, true
}

func setStats(list *[]json.RawMessage, raw json.RawMessage, fail func(string, ...any) error) error {
	id, ok := statsSnapshot(raw)
	if !ok {
		return fail("statistics need a snapshot-id")
	}
	*list = append(removeStats(*list, id), raw)
	return nil
}

func removeStats(list []json.RawMessage, id int64) []json.RawMessage {
	return slices.DeleteFunc(list, func(r json.RawMessage) bool {
		sid, ok := statsSnapshot(r)
		return ok && sid == id
	})
}

// metadataVersion reads NNNNN from ".../metadata/NNNNN-<uuid>.metadata.json".
func metadataVersion(loc string) (int, bool) {
	base := loc[lastSlash(loc)+1:]
	end := 0
	for end < len(base) && base[end] >= '0' && base[end] <= '9' {
		end++
	}
	if end == 0 || end >= len(base) || base[end] != '-' {
		return 0, false
	}
	n, err := strconv.Atoi(base[:end])
	return n, err == nil
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// TouchesProperty reports whether a commit's updates set or remove the
// table property key (the surface asks for more than write to change
// floe.protected). Updates that do not parse touch nothing here: the
// commit refuses them itself.
func TouchesProperty(raw []json.RawMessage, key string) bool {
	for _, r := range raw {
		var u struct {
			Action   string            `json:"action"`
			Updates  map[string]string `json:"updates"`
			Updated  map[string]string `json:"updated"`
			Removals []string          `json:"removals"`
			Removed  []string          `json:"removed"`
		}
		if json.Unmarshal(r, &u) != nil {
			continue
		}
		switch u.Action {
		case "set-properties":
			if _, ok := u.Updates[key]; ok {
				return true
			}
			if _, ok := u.Updated[key]; ok {
				return true
			}
		case "remove-properties":
			if slices.Contains(u.Removals, key) || slices.Contains(u.Removed, key) {
				return true
			}
		}
	}
	return false
}
