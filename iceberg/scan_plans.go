package iceberg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// PlanLimits bound server-side scan planning. A plan is state floe holds
// for a client between calls, so its number, its size and its life are
// capped; the zero value of a field takes its default.
type PlanLimits struct {
	// SyncEntries: a plan whose kept manifests hold at most this many
	// entries is planned within the request (milliseconds to tens of
	// them); a bigger one is planned in the background and polled.
	// Default 50,000.
	SyncEntries int
	// TaskSize is how many file scan tasks one answer carries; the rest of
	// a plan is fetched as plan tasks of this size, so no answer grows past
	// a few megabytes. Default 1,000.
	TaskSize int
	// MaxPlans bounds the plans held at once (most hold nothing but their
	// id until they expire). Default 256.
	MaxPlans int
	// MaxRunning bounds the plans computing in the background at once:
	// each reads manifests flat out, and the machine has other work.
	// Default 4.
	MaxRunning int
	// MaxHeldTasks bounds the file scan tasks held for plan tasks not yet
	// fetched, over all plans (a task is a few hundred bytes). Default
	// 250,000.
	MaxHeldTasks int
	// TTL is how long a finished plan stays fetchable. Default 10 minutes.
	TTL time.Duration
}

const (
	// fetchedTTL is how long a plan whose every plan task was fetched stays:
	// long enough for a client to retry a fetch whose answer it lost.
	fetchedTTL = time.Minute
	// planTimeout fails a background plan that has not finished by then.
	planTimeout = 5 * time.Minute
)

func (l PlanLimits) withDefaults() PlanLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.SyncEntries, 50_000)
	def(&l.TaskSize, 1000)
	def(&l.MaxPlans, 256)
	def(&l.MaxRunning, 4)
	def(&l.MaxHeldTasks, 250_000)
	if l.TTL <= 0 {
		l.TTL = 10 * time.Minute
	}
	return l
}

// PlanStatus is the state of a plan, as the spec names it.
type PlanStatus string

// The spec's plan states.
const (
	PlanCompleted PlanStatus = "completed"
	PlanSubmitted PlanStatus = "submitted"
	PlanFailed    PlanStatus = "failed"
	PlanCancelled PlanStatus = "cancelled"
)

// PlanResult is a plan as planTableScan and fetchPlanningResult answer it.
type PlanResult struct {
	PlanID string
	Status PlanStatus
	// Tasks is a completed plan's first envelope; its PlanTasks are the
	// handles fetchScanTasks takes for the rest.
	Tasks ScanTasks
	// Err says why a plan failed.
	Err   *fault.Error
	Stats ScanStats
	// Location is the table location the plan's files lie under (for the
	// storage credentials an answer may carry).
	Location string
}

// ScanPlans plans scans of the catalog's tables and keeps the plans until
// their tasks are fetched or they expire. It is safe for concurrent use;
// Close stops the plans still computing.
type ScanPlans struct {
	tables *Tables
	log    *slog.Logger
	limits PlanLimits
	now    func() time.Time
	ctx    context.Context // the parent of every background plan
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	plans   map[string]*scanPlan
	running int // background plans computing
	held    int // tasks in plan tasks not yet fetched, over all plans
}

// scanPlan is one plan held between calls.
type scanPlan struct {
	id       string
	tableID  string // the table incarnation planned: a re-created table is another
	status   PlanStatus
	first    ScanTasks
	rest     map[string]ScanTasks // plan-task handle → envelope
	fetched  map[string]bool
	held     int
	err      *fault.Error
	stats    ScanStats
	location string
	expires  time.Time
	cancel   context.CancelFunc
}

// NewScanPlans builds the planner over t. Its background plans run until
// Close.
func NewScanPlans(t *Tables, log *slog.Logger, limits PlanLimits) *ScanPlans {
	if log == nil {
		log = slog.Default()
	}
	ctx, stop := context.WithCancel(context.Background())
	return &ScanPlans{tables: t, log: log, limits: limits.withDefaults(), now: time.Now, ctx: ctx, stop: stop, plans: map[string]*scanPlan{}}
}

// Close cancels the plans still computing and waits for them to stop.
func (p *ScanPlans) Close() {
	p.stop()
	p.wg.Wait()
}

// Plan plans a scan of the table ref names: synchronously when its kept
// manifests are small (the answer is completed), in the background
// otherwise (submitted; poll Result). A request the table cannot answer is
// an *fault.Error; too many plans at once is ErrBusy.
func (p *ScanPlans) Plan(ctx context.Context, ref catalog.TableRef, req ScanRequest) (PlanResult, error) {
	in, err := p.tables.resolveScan(ctx, ref, req)
	if err != nil {
		return PlanResult{}, err
	}
	var st ScanStats
	data, deletes, err := p.tables.pruneManifests(in, &st)
	if err != nil {
		return PlanResult{}, err
	}
	sp := &scanPlan{id: newPlanID(), tableID: in.table.ID, location: in.md.Location, status: PlanSubmitted}
	if estimate(data)+estimate(deletes) <= p.limits.SyncEntries {
		tasks, err := p.tables.collectTasks(ctx, in, data, deletes, &st)
		if err != nil {
			return PlanResult{}, err
		}
		if err := p.finish(sp, tasks, st, true); err != nil {
			return PlanResult{}, err
		}
		p.log.Debug("iceberg scan planned", "table", ref.String(), "plan", sp.id, "stats", st)
		return p.result(sp), nil
	}
	p.mu.Lock()
	if err := p.roomLocked(); err != nil {
		p.mu.Unlock()
		return PlanResult{}, err
	}
	if p.running >= p.limits.MaxRunning {
		p.mu.Unlock()
		return PlanResult{}, busy("%d large scans are being planned already; retry shortly", p.limits.MaxRunning)
	}
	pctx, cancel := context.WithTimeout(p.ctx, planTimeout)
	sp.cancel = cancel
	sp.expires = p.now().Add(planTimeout + p.limits.TTL)
	p.plans[sp.id] = sp
	p.running++
	// The answer is taken before the work starts: a background plan always
	// answers submitted, however quickly it then completes.
	submitted := PlanResult{PlanID: sp.id, Status: sp.status, Location: sp.location}
	p.mu.Unlock()
	p.wg.Go(func() {
		defer cancel()
		tasks, err := p.tables.collectTasks(pctx, in, data, deletes, &st)
		p.mu.Lock()
		p.running--
		p.mu.Unlock()
		switch {
		case err == nil:
			err = p.finish(sp, tasks, st, false)
		case errors.Is(err, context.Canceled):
			return // cancelled by the client (Cancel set the state) or by Close
		}
		if err != nil {
			p.fail(sp, ref, err)
		}
	})
	return submitted, nil
}

// finish stores a computed plan: the first envelope answers at once, the
// rest waits as plan tasks. register is true for a plan not yet held.
func (p *ScanPlans) finish(sp *scanPlan, tasks []plannedTask, st ScanStats, register bool) error {
	envs := envelopes(tasks, p.limits.TaskSize)
	p.mu.Lock()
	defer p.mu.Unlock()
	if register {
		if err := p.roomLocked(); err != nil {
			return err
		}
	} else if sp.status != PlanSubmitted {
		return nil // cancelled meanwhile
	}
	held := 0
	rest := map[string]ScanTasks{}
	var first ScanTasks
	for i, e := range envs {
		if i == 0 {
			first = e
			continue
		}
		h := sp.id + "-" + strconv.Itoa(i)
		rest[h] = e
		first.PlanTasks = append(first.PlanTasks, h)
		held += len(e.FileScanTasks)
	}
	if p.held+held > p.limits.MaxHeldTasks {
		err := busy("floe holds the tasks of other large scan plans right now; retry shortly")
		if register {
			return err
		}
		sp.status, sp.err = PlanFailed, err
		return nil
	}
	p.held += held
	sp.first, sp.rest, sp.fetched, sp.held, sp.stats = first, rest, map[string]bool{}, held, st
	sp.status = PlanCompleted
	sp.expires = p.now().Add(p.limits.TTL)
	if register {
		p.plans[sp.id] = sp
	}
	return nil
}

// fail records why a background plan failed; a server fault is logged and
// the client told only that it happened.
func (p *ScanPlans) fail(sp *scanPlan, ref catalog.TableRef, err error) {
	var ie *fault.Error
	if !errors.As(err, &ie) {
		p.log.Error("iceberg scan plan failed", "table", ref.String(), "plan", sp.id, "err", err)
		ie = busy("planning the scan failed on the server (plan %s); retry, and if it fails again ask the operator to check floe's log", sp.id)
		if errors.Is(err, context.DeadlineExceeded) {
			ie = newError(fault.Invalid, "filter", "planning the scan took longer than %s; narrow the filter", planTimeout)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp.status == PlanSubmitted {
		sp.status, sp.err = PlanFailed, ie
		sp.expires = p.now().Add(p.limits.TTL)
	}
}

// roomLocked makes room for one more plan: expired plans go, then the
// oldest finished one that holds no tasks; ErrBusy when none can.
func (p *ScanPlans) roomLocked() error {
	now := p.now()
	for id, sp := range p.plans {
		if now.After(sp.expires) {
			p.dropLocked(id, sp)
		}
	}
	if len(p.plans) < p.limits.MaxPlans {
		return nil
	}
	var victim *scanPlan
	for _, sp := range p.plans {
		if sp.status != PlanSubmitted && len(sp.rest) == len(sp.fetched) && (victim == nil || sp.expires.Before(victim.expires)) {
			victim = sp
		}
	}
	if victim == nil {
		return busy("floe holds %d scan plans awaiting their clients; retry shortly", p.limits.MaxPlans)
	}
	p.dropLocked(victim.id, victim)
	return nil
}

func (p *ScanPlans) dropLocked(id string, sp *scanPlan) {
	if sp.cancel != nil {
		sp.cancel()
	}
	p.held -= sp.held
	sp.held = 0
	delete(p.plans, id)
}

// result is sp as an answer.
func (p *ScanPlans) result(sp *scanPlan) PlanResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := PlanResult{PlanID: sp.id, Status: sp.status, Err: sp.err, Stats: sp.stats, Location: sp.location}
	if sp.status == PlanCompleted {
		r.Tasks = sp.first
	}
	return r
}

// lookup finds a plan of the table ref names now; a plan of another table,
// of an earlier table of that name, or one expired is not found.
func (p *ScanPlans) lookup(ctx context.Context, ref catalog.TableRef, id string) (*scanPlan, error) {
	t, err := p.tables.Table(ctx, ref)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sp, ok := p.plans[id]
	if ok && p.now().After(sp.expires) {
		p.dropLocked(id, sp)
		ok = false
	}
	if !ok || sp.tableID != t.ID {
		return nil, newError(fault.NotFound, "plan", "scan plan %q of table %s does not exist (it expired, was cancelled long ago or was never made); plan the scan again", clipID(id), ref.Name)
	}
	return sp, nil
}

// Result answers fetchPlanningResult.
func (p *ScanPlans) Result(ctx context.Context, ref catalog.TableRef, id string) (PlanResult, error) {
	sp, err := p.lookup(ctx, ref, id)
	if err != nil {
		return PlanResult{}, err
	}
	return p.result(sp), nil
}

// Known reports whether id is a live plan of the table (loadCredentials'
// planId).
func (p *ScanPlans) Known(ctx context.Context, ref catalog.TableRef, id string) error {
	_, err := p.lookup(ctx, ref, id)
	return err
}

// Cancel answers cancelPlanning: a plan computing stops, a finished one
// releases its tasks; either answers cancelled from now on.
func (p *ScanPlans) Cancel(ctx context.Context, ref catalog.TableRef, id string) error {
	sp, err := p.lookup(ctx, ref, id)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp.cancel != nil {
		sp.cancel()
	}
	p.held -= sp.held
	sp.held, sp.rest, sp.first = 0, nil, ScanTasks{}
	sp.status, sp.err = PlanCancelled, nil
	sp.expires = p.now().Add(p.limits.TTL)
	return nil
}

// Tasks answers fetchScanTasks for one plan-task handle.
func (p *ScanPlans) Tasks(ctx context.Context, ref catalog.TableRef, handle string) (ScanTasks, error) {
	missing := newError(fault.NotFound, "plan-task", "plan task %q of table %s does not exist (its plan expired or was cancelled); plan the scan again", clipID(handle), ref.Name)
	cut := strings.LastIndexByte(handle, '-')
	if cut <= 0 {
		return ScanTasks{}, missing
	}
	sp, err := p.lookup(ctx, ref, handle[:cut])
	if err != nil {
		if errors.Is(err, fault.NotFound) {
			var ie *fault.Error
			if errors.As(err, &ie) && ie.Field == "plan" {
				return ScanTasks{}, missing
			}
		}
		return ScanTasks{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	env, ok := sp.rest[handle]
	if !ok {
		return ScanTasks{}, missing
	}
	if !sp.fetched[handle] {
		sp.fetched[handle] = true
		if len(sp.fetched) == len(sp.rest) {
			// Every task is with the client: keep the plan only for retries.
			sp.expires = p.now().Add(fetchedTTL)
		}
	}
	return env, nil
}

func newPlanID() string {
	var b [16]byte
	rand.Read(b[:])
	return "plan-" + hex.EncodeToString(b[:])
}

// clipID shortens a client's id for an error sentence.
func clipID(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
