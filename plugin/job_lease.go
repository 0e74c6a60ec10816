package plugin

// Job leases between replicas (Options.Shared): several floe processes on
// one PostgreSQL database share plugin_jobs. Each active job is held by one
// replica — the one whose memory schedules it — through owner and
// lease_until. The holder renews its leases every JobLease/3. A pending job
// no worker of its holder can run is released (owner ''), and a replica with
// a capable worker claims it with a conditional UPDATE, which PostgreSQL
// applies to one claimer only (the others' WHERE no longer matches), so no
// SELECT … FOR UPDATE SKIP LOCKED is needed. When a replica dies its leases
// run out, and another replica claims its jobs: pending ones are scheduled
// again; assigned or running ones are failed with a sentence, because their
// worker was connected to the dead replica and whether the attempt finished
// cannot be known (retrying by itself could run a compaction twice).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/floe/floe/persist"
)

// claimBatch bounds the jobs one replica claims per pass, so a replica that
// comes up next to a long queue leaves work for the others' workers too.
const claimBatch = 64

// forgetLocked drops a job from this replica's memory.
func (st *jobStore) forgetLocked(r *jobRec) {
	delete(st.active, r.ID)
	if r.DedupeKey != "" && st.dedupe[r.DedupeKey] == r.ID {
		delete(st.dedupe, r.DedupeKey)
	}
}

// leaseLoop renews this replica's leases and claims released or expired
// jobs until ctx ends.
func (st *jobStore) leaseLoop(ctx context.Context) {
	t := time.NewTicker(st.p.cfg.SchedulerTick)
	defer t.Stop()
	var renewed time.Time
	for {
		now := st.p.now()
		if now.Sub(renewed) >= st.p.cfg.JobLease/3 {
			if err := st.renew(ctx); err != nil {
				if ctx.Err() == nil {
					st.p.log.Warn("could not renew job leases", "err", err)
				}
			} else {
				renewed = now
			}
		}
		if err := st.claim(ctx); err != nil && ctx.Err() == nil {
			st.p.log.Warn("could not claim jobs from other replicas", "err", err)
		}
		if err := st.finishRequested(ctx); err != nil && ctx.Err() == nil {
			st.p.log.Warn("could not read cancel requests from other replicas", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// renew extends the lease of every active job this replica holds.
func (st *jobStore) renew(ctx context.Context) error {
	_, err := st.p.db.ExecContext(ctx, `UPDATE plugin_jobs SET lease_until = ?
		WHERE owner = ? AND state IN (?,?,?)`, persist.Micros(st.p.now().Add(st.p.cfg.JobLease)), st.p.cfg.ReplicaID,
		string(JobPending), string(JobAssigned), string(JobRunning))
	return err
}

// release hands a pending job this replica cannot run to the others and
// forgets it. The database is written before the job mutex is taken: a job
// that is no longer pending here by then (cancelled, expired) keeps what
// that change stored, since the release only touches a pending row this
// replica holds.
func (st *jobStore) release(ctx context.Context, id string) {
	res, err := st.p.db.ExecContext(ctx, `UPDATE plugin_jobs SET owner = '', lease_until = 0
		WHERE id = ? AND owner = ? AND state = ?`, id, st.p.cfg.ReplicaID, string(JobPending))
	if err != nil {
		st.p.log.Warn("could not release a job to other replicas", "job", id, "err", err)
		return
	}
	released, _ := res.RowsAffected()
	st.mu.Lock()
	r, ok := st.active[id]
	var line activityLine
	logged := false
	if ok && r.State == JobPending {
		if released == 1 {
			line, logged = st.reserveLineLocked(r, "released by replica %s: none of its workers runs %s", st.p.cfg.ReplicaID, r.Type)
		}
		st.forgetLocked(r)
	}
	st.mu.Unlock()
	if logged {
		st.insertActivity(ctx, line)
	}
}

// leaseCand is a job another replica released or let expire.
type leaseCand struct {
	id, jobType, state, owner string
}

// claim takes over what no live replica holds: pending jobs this replica's
// workers can run, and assigned or running jobs whose holder died (those
// are failed with a sentence; see the file comment).
func (st *jobStore) claim(ctx context.Context) error {
	now := persist.Micros(st.p.now())
	rows, err := st.p.db.QueryContext(ctx, `SELECT id, job_type, state, owner FROM plugin_jobs
		WHERE state IN (?,?,?) AND lease_until < ? ORDER BY created_at LIMIT ?`,
		string(JobPending), string(JobAssigned), string(JobRunning), now, claimBatch)
	if err != nil {
		return err
	}
	var cands []leaseCand
	for rows.Next() {
		var c leaseCand
		if err := rows.Scan(&c.id, &c.jobType, &c.state, &c.owner); err != nil {
			rows.Close()
			return err
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range cands {
		if JobState(c.state) == JobPending && !st.p.canExecute(c.jobType) {
			continue // another replica's workers may run it
		}
		res, err := st.p.db.ExecContext(ctx, `UPDATE plugin_jobs SET owner = ?, lease_until = ?
			WHERE id = ? AND state = ? AND lease_until < ?`, st.p.cfg.ReplicaID,
			persist.Micros(st.p.now().Add(st.p.cfg.JobLease)), c.id, c.state, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue // another replica was quicker
		}
		if err := st.adopt(ctx, c, true); err != nil {
			return err
		}
	}
	return nil
}

// adopt loads a job just claimed into memory: a pending one is scheduled
// here, an assigned or running one is failed for good when settle is set.
func (st *jobStore) adopt(ctx context.Context, c leaseCand, settle bool) error {
	j, err := st.get(ctx, c.id)
	if err != nil {
		return err
	}
	var seq sql.NullInt64
	_ = st.p.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM plugin_job_events WHERE job_id = ?`, c.id).Scan(&seq)
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.active[j.ID]; ok {
		return nil
	}
	r := &jobRec{Job: j, seq: int(seq.Int64), lastAlive: j.LastProgressAt}
	st.active[r.ID] = r
	if r.DedupeKey != "" {
		st.dedupe[r.DedupeKey] = r.ID
	}
	if j.State == JobPending || !settle {
		st.logLocked(ctx, r, "claimed by replica %s", st.p.cfg.ReplicaID)
		st.p.sched.wake(r.Lane)
		return nil
	}
	r.MaxAttempts = r.Attempts // no retry: the attempt may still be running
	st.failAttemptLocked(ctx, r, fmt.Sprintf(ReplicaLostError, c.owner, st.p.cfg.JobLease))
	return nil
}

// ReplicaLostError is the error of a job whose replica stopped renewing its
// lease while the job was assigned or running (formatted with the replica
// id and the lease time).
const ReplicaLostError = "floe replica %s, whose worker ran this job, stopped renewing its lease for %s (it died or lost the database); whether the attempt finished is unknown, so the job is not retried: check the table and submit it again"

// canExecute reports whether a live worker of this replica can run jobType.
func (p *Plugin) canExecute(jobType string) bool {
	for _, s := range p.reg.live(p.now()) {
		if c, ok := s.capability(jobType); ok && c.GetCanExecute() {
			return true
		}
	}
	return false
}

// activeElsewhere finds an active job in the database that spec would
// double: one with its dedupe key, or (for detection) of its type on its
// object. Other replicas' jobs are not in this one's memory.
func (st *jobStore) activeElsewhere(ctx context.Context, spec JobSpec, source string) (Job, bool, error) {
	var conds []string
	args := []any{string(JobPending), string(JobAssigned), string(JobRunning)}
	if spec.DedupeKey != "" {
		conds = append(conds, `dedupe_key = ?`)
		args = append(args, spec.DedupeKey)
	}
	if source != SourceSubmitted && spec.ObjectID != "" {
		conds = append(conds, `(job_type = ? AND object_id = ?)`)
		args = append(args, spec.Type, spec.ObjectID)
	}
	if len(conds) == 0 {
		return Job{}, false, nil
	}
	q := `SELECT ` + jobColumns + ` FROM plugin_jobs WHERE state IN (?,?,?) AND (` + strings.Join(conds, " OR ")
	j, err := scanJob(st.p.db.QueryRowContext(ctx, q+`) LIMIT 1`, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("plugin: look for a duplicate job: %w", err)
	}
	return j, true, nil
}

// claimDetection reports whether this replica may start jobType's
// scheduled detection now: it wins a conditional upsert of the job type's
// row only when no replica started one within the interval.
func (p *Plugin) claimDetection(ctx context.Context, jobType string, interval time.Duration) (bool, error) {
	now := p.now()
	res, err := p.db.ExecContext(ctx, `INSERT INTO plugin_detection_runs(job_type, started_at, owner) VALUES (?,?,?)
		ON CONFLICT(job_type) DO UPDATE SET started_at = excluded.started_at, owner = excluded.owner
		WHERE plugin_detection_runs.started_at <= ?`, jobType, persist.Micros(now), p.cfg.ReplicaID, persist.Micros(now.Add(-interval)))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// finishAnywhere ends an active job by hand (cancel, expire) wherever it is
// held. A job this replica holds, or that nobody holds (released, or its
// replica died), is claimed and finished here at once; a job another live
// replica holds gets a request in its row, which that replica's lease loop
// carries out within a scheduler tick. The job is returned as it is now.
func (st *jobStore) finishAnywhere(ctx context.Context, id string, state JobState, why string) (Job, error) {
	st.mu.Lock()
	_, local := st.active[id]
	st.mu.Unlock()
	if local || !st.p.cfg.Shared {
		return st.finish(ctx, id, state, why)
	}
	j, err := st.get(ctx, id)
	if err != nil || !j.State.Active() {
		return j, err
	}
	now := persist.Micros(st.p.now())
	res, err := st.p.db.ExecContext(ctx, `UPDATE plugin_jobs SET owner = ?, lease_until = ?
		WHERE id = ? AND state = ? AND lease_until < ?`, st.p.cfg.ReplicaID,
		persist.Micros(st.p.now().Add(st.p.cfg.JobLease)), id, string(j.State), now)
	if err != nil {
		return Job{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		if err := st.adopt(ctx, leaseCand{id: id, jobType: j.Type, state: string(j.State)}, false); err != nil {
			return Job{}, err
		}
		return st.finish(ctx, id, state, why)
	}
	if _, err := st.p.db.ExecContext(ctx, `UPDATE plugin_jobs SET finish_request = ?, finish_reason = ?
		WHERE id = ? AND state IN (?,?,?)`, string(state), truncate(why, maxErrorLen), id,
		string(JobPending), string(JobAssigned), string(JobRunning)); err != nil {
		return Job{}, err
	}
	return j, nil
}

// finishRequested carries out cancel and expire requests other replicas
// left on jobs this one holds.
func (st *jobStore) finishRequested(ctx context.Context) error {
	rows, err := st.p.db.QueryContext(ctx, `SELECT id, finish_request, finish_reason FROM plugin_jobs
		WHERE owner = ? AND finish_request <> '' AND state IN (?,?,?)`, st.p.cfg.ReplicaID,
		string(JobPending), string(JobAssigned), string(JobRunning))
	if err != nil {
		return err
	}
	type req struct{ id, state, why string }
	var reqs []req
	for rows.Next() {
		var r req
		if err := rows.Scan(&r.id, &r.state, &r.why); err != nil {
			rows.Close()
			return err
		}
		reqs = append(reqs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range reqs {
		st.mu.Lock()
		_, held := st.active[r.id]
		st.mu.Unlock()
		if !held {
			continue // the row names this replica, but its memory let go (lost lease): the new holder acts
		}
		if _, err := st.finish(ctx, r.id, JobState(r.state), r.why); err != nil {
			return err
		}
	}
	return nil
}

// elsewhereTimeout bounds the database read ActiveJobs adds on replicas;
// past it the caller sees this replica's own jobs only.
const elsewhereTimeout = 2 * time.Second

// activeHeldElsewhere reads the active jobs other replicas hold (or nobody
// holds: released, waiting for a worker), so every replica's console lists
// the same active jobs. local is what this replica holds.
func (st *jobStore) activeHeldElsewhere(local []Job) []Job {
	ctx, cancel := context.WithTimeout(st.p.root, elsewhereTimeout)
	defer cancel()
	rows, err := st.p.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM plugin_jobs WHERE state IN (?,?,?) LIMIT ?`,
		string(JobPending), string(JobAssigned), string(JobRunning), maxActiveJobs)
	if err != nil {
		st.p.log.Warn("could not read other replicas' active jobs", "err", err)
		return nil
	}
	defer rows.Close()
	mine := make(map[string]bool, len(local))
	for _, j := range local {
		mine[j.ID] = true
	}
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			st.p.log.Warn("could not read other replicas' active jobs", "err", err)
			return out
		}
		if !mine[j.ID] {
			out = append(out, j)
		}
	}
	return out
}
