package plugin

import "fmt"

// JobOrder is how ListJobs sorts: by creation (the default, newest first),
// by last update, or by type (ties newest first). Pages stay keyset-paged
// by a job id in any order.
type JobOrder struct {
	Key JobSortKey
	Asc bool // oldest (or A–Z) first
}

// JobSortKey names a JobOrder column.
type JobSortKey string

const (
	JobByCreated JobSortKey = "created"
	JobByUpdated JobSortKey = "updated"
	JobByType    JobSortKey = "type"
)

// JobSortKeys are the orders ListJobs knows.
var JobSortKeys = []JobSortKey{JobByCreated, JobByUpdated, JobByType}

// orderSQL is the ORDER BY of o and the condition that starts a page after
// the job whose id is the cursor (its own sort values read by a subquery,
// so the cursor stays a job id in every order); id breaks ties.
func (o JobOrder) orderSQL() (orderBy, after string) {
	dir, cmp := "DESC", "<"
	if o.Asc {
		dir, cmp = "ASC", ">"
	}
	col := "created_at"
	if o.Key == JobByUpdated {
		col = "updated_at"
	}
	cur := func(c string) string { return "(SELECT " + c + " FROM plugin_jobs WHERE id = ?)" }
	if o.Key == JobByType {
		// Type in the asked direction, then newest first within a type.
		return fmt.Sprintf("job_type %s, created_at DESC, id DESC", dir),
			fmt.Sprintf("(job_type %[1]s %[2]s OR (job_type = %[2]s AND (created_at < %[3]s OR (created_at = %[3]s AND id < ?))))",
				cmp, cur("job_type"), cur("created_at"))
	}
	return fmt.Sprintf("%s %s, id %s", col, dir, dir),
		fmt.Sprintf("(%[1]s %[2]s %[3]s OR (%[1]s = %[3]s AND id %[2]s ?))", col, cmp, cur(col))
}

// afterArgs are the bind values of orderSQL's condition for cursor id.
func (o JobOrder) afterArgs(id string) []any {
	if o.Key == JobByType {
		return []any{id, id, id, id, id}
	}
	return []any{id, id, id}
}
