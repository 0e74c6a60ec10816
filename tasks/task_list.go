package tasks

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Page sizes of ListTasks.
const (
	DefaultListSize = 100
	// MaxListSize bounds one page: a page of task records is small, but a
	// whole table's history in one answer is not.
	MaxListSize = 1000
)

// ListOptions select one page of a table's tasks of one type.
type ListOptions struct {
	Type   Type
	Marker string // "" for the first page, else a NextMarker passed back verbatim
	Limit  int    // 1..MaxListSize; 0 means DefaultListSize
}

// markerPrefix versions the marker so its layout can change later.
const markerPrefix = "t1:"

// List returns tasks newest first and the marker of the next page ("" on the
// last page).
func (s *Service) List(ctx context.Context, tableID string, opt ListOptions) ([]Task, string, error) {
	if _, err := ParseType(string(opt.Type)); err != nil {
		return nil, "", err
	}
	limit := opt.Limit
	if limit == 0 {
		limit = DefaultListSize
	}
	if limit < 1 || limit > MaxListSize {
		return nil, "", invalidf("max_results must be between 1 and %d", MaxListSize)
	}
	q := `SELECT ` + taskColumns + ` FROM lance_tasks WHERE table_id = ? AND task_type = ?`
	args := []any{tableID, string(opt.Type)}
	if opt.Marker != "" {
		created, id, err := decodeMarker(opt.Marker)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, created, created, id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("tasks: list: %w", err)
	}
	list, err := scanTasks(rows)
	if err != nil {
		return nil, "", fmt.Errorf("tasks: list: %w", err)
	}
	next := ""
	if len(list) > limit {
		list = list[:limit]
		last := list[limit-1]
		next = encodeMarker(micros(last.CreatedAt), last.ID)
	}
	return list, next, nil
}

func encodeMarker(created int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(markerPrefix + strconv.FormatInt(created, 10) + ":" + id))
}

func decodeMarker(m string) (int64, string, error) {
	bad := invalidf("marker is not one this server issued; pass next_marker back unchanged, or omit it for the first page")
	b, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil {
		return 0, "", bad
	}
	rest, ok := strings.CutPrefix(string(b), markerPrefix)
	if !ok {
		return 0, "", bad
	}
	num, id, ok := strings.Cut(rest, ":")
	if !ok || !ValidTaskID(id) {
		return 0, "", bad
	}
	created, err := strconv.ParseInt(num, 10, 64)
	if err != nil || created < 0 {
		return 0, "", bad
	}
	return created, id, nil
}
