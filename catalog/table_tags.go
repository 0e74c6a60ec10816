package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// maxResourceTags bounds the tags on one bucket or table, as S3 Tables does
// (50 per resource), so a tag set AWS would refuse is refused here.
const maxResourceTags = maxBucketTags

// validateTags checks tag keys and values against S3 Tables' bounds.
func validateTags(tags map[string]string) error {
	if len(tags) > maxResourceTags {
		return Invalid("tags", fmt.Sprintf("a resource may have at most %d tags", maxResourceTags))
	}
	for k, v := range tags {
		if k == "" || len(k) > maxTagKey || len(v) > maxTagValue {
			return Invalid("tags", fmt.Sprintf("a tag key is 1–%d characters and its value at most %d", maxTagKey, maxTagValue))
		}
	}
	return nil
}

func tableIDNotFound(id string) error {
	return newErr(fault.NotFound, "table_id", "table id %q does not exist; the table may have been dropped", id)
}

// TableTags answers the tags of the table with id. Tags are the catalog's
// labels for people and tools (S3 Tables' tags); they never change the
// table's version token.
func (s *Store) TableTags(ctx context.Context, id string) (map[string]string, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, tableIDNotFound(id)
	}
	var raw string
	err := s.ro.QueryRowContext(ctx, `SELECT tags FROM tables WHERE id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, tableIDNotFound(id)
	}
	if err != nil {
		return nil, dbErr("read table tags", err)
	}
	return decodeMap(raw), nil
}

// UpdateTableTags sets and removes tags on the table with id in one
// transaction and answers its new tags.
func (s *Store) UpdateTableTags(ctx context.Context, id string, set map[string]string, remove []string) (map[string]string, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, tableIDNotFound(id)
	}
	if err := validateTags(set); err != nil {
		return nil, err
	}
	var tags map[string]string
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var raw string
		err := tx.QueryRowContext(ctx, `SELECT tags FROM tables WHERE id = ?`, id).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) {
			return tableIDNotFound(id)
		}
		if err != nil {
			return dbErr("read table tags", err)
		}
		tags = decodeMap(raw)
		for _, k := range remove {
			delete(tags, k)
		}
		for k, v := range set {
			tags[k] = v
		}
		if err := validateTags(tags); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tables SET tags = ? WHERE id = ?`, encodeMap(tags), id); err != nil {
			return dbErr("update table tags", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tags, nil
}
