package iceberg

import (
	"encoding/json"
	"fmt"
)

// requirement is one assert-* of a commit, checked against the table's
// current metadata before any update applies.
type requirement struct {
	Type                    string  `json:"type"`
	UUID                    *string `json:"uuid"`
	Ref                     *string `json:"ref"`
	SnapshotID              *int64  `json:"snapshot-id"`
	LastAssignedFieldID     *int    `json:"last-assigned-field-id"`
	CurrentSchemaID         *int    `json:"current-schema-id"`
	LastAssignedPartitionID *int    `json:"last-assigned-partition-id"`
	DefaultSpecID           *int    `json:"default-spec-id"`
	DefaultSortOrderID      *int    `json:"default-sort-order-id"`
}

// parseRequirements decodes and shape-checks requirements; an unknown type
// or a missing field is the client's mistake (BadRequest), not a conflict.
func parseRequirements(raw []json.RawMessage) ([]requirement, error) {
	out := make([]requirement, 0, len(raw))
	for i, r := range raw {
		var q requirement
		if err := json.Unmarshal(r, &q); err != nil {
			return nil, invalid("requirements", "requirement %d: %v", i, err)
		}
		var missing string
		switch q.Type {
		case "assert-create":
		case "assert-table-uuid":
			if q.UUID == nil {
				missing = "uuid"
			}
		case "assert-ref-snapshot-id":
			if q.Ref == nil {
				missing = "ref" // a null snapshot-id means "the ref must not exist"
			}
		case "assert-last-assigned-field-id":
			if q.LastAssignedFieldID == nil {
				missing = "last-assigned-field-id"
			}
		case "assert-current-schema-id":
			if q.CurrentSchemaID == nil {
				missing = "current-schema-id"
			}
		case "assert-last-assigned-partition-id":
			if q.LastAssignedPartitionID == nil {
				missing = "last-assigned-partition-id"
			}
		case "assert-default-spec-id":
			if q.DefaultSpecID == nil {
				missing = "default-spec-id"
			}
		case "assert-default-sort-order-id":
			if q.DefaultSortOrderID == nil {
				missing = "default-sort-order-id"
			}
		case "":
			return nil, invalid("requirements", "requirement %d has no type", i)
		default:
			return nil, invalid("requirements", "requirement %d: unknown type %q", i, q.Type)
		}
		if missing != "" {
			return nil, invalid("requirements", "requirement %d (%s) needs %q", i, q.Type, missing)
		}
		out = append(out, q)
	}
	return out, nil
}

// check reports why a requirement does not hold for md (nil when the table
// does not exist yet), or nil when it holds.
func (q requirement) check(md *tableMetadata) error {
	if q.Type == "assert-create" {
		if md != nil {
			return fmt.Errorf("table already exists")
		}
		return nil
	}
	if md == nil {
		return fmt.Errorf("%s: table does not exist", q.Type)
	}
	switch q.Type {
	case "assert-table-uuid":
		if *q.UUID != md.TableUUID {
			return fmt.Errorf("table uuid is %s, not %s", md.TableUUID, *q.UUID)
		}
	case "assert-ref-snapshot-id":
		ref, ok := md.Refs[*q.Ref]
		switch {
		case q.SnapshotID == nil && ok:
			return fmt.Errorf("ref %q was created concurrently (snapshot %d)", *q.Ref, ref.SnapshotID)
		case q.SnapshotID != nil && !ok:
			return fmt.Errorf("ref %q is missing (expected snapshot %d)", *q.Ref, *q.SnapshotID)
		case q.SnapshotID != nil && ref.SnapshotID != *q.SnapshotID:
			return fmt.Errorf("ref %q has changed: it points at snapshot %d, not %d", *q.Ref, ref.SnapshotID, *q.SnapshotID)
		}
	case "assert-last-assigned-field-id":
		if md.LastColumnID != *q.LastAssignedFieldID {
			return fmt.Errorf("last assigned field id is %d, not %d", md.LastColumnID, *q.LastAssignedFieldID)
		}
	case "assert-current-schema-id":
		if md.CurrentSchemaID != *q.CurrentSchemaID {
			return fmt.Errorf("current schema id is %d, not %d", md.CurrentSchemaID, *q.CurrentSchemaID)
		}
	case "assert-last-assigned-partition-id":
		if md.LastPartitionID != *q.LastAssignedPartitionID {
			return fmt.Errorf("last assigned partition id is %d, not %d", md.LastPartitionID, *q.LastAssignedPartitionID)
		}
	case "assert-default-spec-id":
		if md.DefaultSpecID != *q.DefaultSpecID {
			return fmt.Errorf("default spec id is %d, not %d", md.DefaultSpecID, *q.DefaultSpecID)
		}
	case "assert-default-sort-order-id":
		if md.DefaultSortOrderID != *q.DefaultSortOrderID {
			return fmt.Errorf("default sort order id is %d, not %d", md.DefaultSortOrderID, *q.DefaultSortOrderID)
		}
	}
	return nil
}
