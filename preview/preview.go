// Package preview fetches sample rows of a table from a worker: it asks the
// worker that last observed the table (else any connected worker that can
// preview its format), reads the Arrow IPC batches it streams back, and
// renders a bounded grid of text cells. Rows pass through memory only; they
// are never cached or logged.
package preview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/plugin"
)

// Caps, each with its reason.
const (
	// DefaultRowLimit is what a page shows when it asks for no number.
	DefaultRowLimit = 50
	// MaxRowLimit bounds one preview: a grid of more rows is not read by
	// people, and every row crosses the worker's stream.
	MaxRowLimit = 200
	// MaxCellRunes cuts long text so one cell cannot stretch a page.
	MaxCellRunes = 200
	// MaxPreviewBytes bounds the Arrow bytes read for one preview (200 rows
	// of a 768-dim float32 vector are about 0.6 MB; this leaves room for
	// wide tables while keeping a runaway worker from filling memory).
	MaxPreviewBytes = 32 << 20
	// VectorShownValues is how many leading values a vector cell shows
	// before "…" and its dimension.
	VectorShownValues = 5
	// MaxColumns bounds the columns rendered; wider tables show the first.
	MaxColumns = 200
	// Timeout bounds a whole preview round trip.
	Timeout = 15 * time.Second
)

// Workers is what the broker needs from the plugin channel.
type Workers interface {
	StartPreview(ctx context.Context, workerID string, req plugin.PreviewRequest) (*plugin.PreviewCall, error)
	PreviewWorkers(format string) []string
	Connected(workerID string) bool
}

// Observations tells which worker last looked at an object.
type Observations interface {
	WorkerFor(objectID string, format catalog.Format) (string, bool)
}

// Broker fetches previews. Safe for concurrent use.
type Broker struct {
	w        Workers
	obs      Observations
	timeout  time.Duration
	maxBytes int
	relay    *relay                  // set by Relay (PostgreSQL replicas); nil: this replica's workers only
	metrics  atomic.Pointer[metrics] // set by Instrument; nil records nothing
}

// New builds a Broker over the plugin channel and the observation store.
func New(w Workers, obs Observations) *Broker {
	return &Broker{w: w, obs: obs, timeout: Timeout, maxBytes: MaxPreviewBytes}
}

// Request asks for sample rows of one table.
type Request struct {
	ObjectID string // catalog table id
	Format   catalog.Format
	RowLimit int      // <= 0: DefaultRowLimit; capped at MaxRowLimit
	Columns  []string // empty: all
	Filter   string   // engine SQL predicate; empty: none
	// Version reads the table as of that version (time travel); 0: the
	// latest. A worker whose engine cannot travel fails the preview.
	Version uint64
	// Offset skips that many matching rows (0..MaxOffset), for the pages
	// after the first RowLimit rows.
	Offset int64
}

// MaxOffset bounds how far into a table Browse Data pages: the engine
// reads and drops every skipped row, so a page a million rows in is the
// deepest worth a click (a filter finds the rest).
const MaxOffset = 1_000_000

// Column is one result column.
type Column struct {
	Name string
	Type string // Arrow type, e.g. "int64", "fixed_size_list<item: float32>[768]"
}

// Cell is one rendered value. Null is distinct from an empty string.
type Cell struct {
	Text      string
	Null      bool
	Truncated bool // Text was cut (long text, long list, vector)
}

// Result is a rendered preview.
type Result struct {
	Columns   []Column
	Rows      [][]Cell
	RowsRead  int   // rows decoded (≤ the row limit)
	Offset    int64 // matching rows skipped before the first one read
	TotalRows int64 // rows in the table (at the version read) as the worker reports; -1 unknown
	Truncated bool  // more rows exist than were shown
	WorkerID  string
}

// Error kinds; test with errors.Is.
var (
	ErrNotObserved = errors.New("no worker has seen the table")
	ErrWorkerGone  = errors.New("the worker is gone")
	ErrWorker      = errors.New("the worker reported an error")
	ErrTimeout     = errors.New("the worker did not answer in time")
	ErrTooLarge    = errors.New("the preview is too large")
	ErrDecode      = errors.New("the worker's Arrow data could not be read")
	// ErrBadFilter: the engine refused the filter; the same read without it
	// works, so the operator's input is at fault, not the worker.
	ErrBadFilter = errors.New("the engine refused the filter")
)

// fail is a preview failure as the domain error: the reason (one of the
// Err* above) stays in the chain for errors.Is, the kind is what a surface
// maps, and the message tells the operator what to do.
func fail(reason error, format string, args ...any) error {
	kind := fault.Unavailable
	switch reason {
	case ErrTooLarge:
		kind = fault.Quota
	case ErrBadFilter:
		kind = fault.Invalid
	}
	return &fault.Error{Kind: kind, Field: "worker", Message: fmt.Sprintf(format, args...), Err: reason}
}

func (b *Broker) pickWorker(req Request) (string, error) {
	format := string(req.Format)
	live := b.w.PreviewWorkers(format)
	observer, observed := b.obs.WorkerFor(req.ObjectID, req.Format)
	if observed && slices.Contains(live, observer) {
		return observer, nil
	}
	if len(live) > 0 {
		return live[0], nil
	}
	if observed {
		why := "is not connected"
		if b.w.Connected(observer) {
			why = "cannot preview " + format + " tables"
		}
		return "", fail(ErrWorkerGone,
			"Worker %s, which last looked at this table, %s, and no other worker can preview %s tables. "+
				"Start the worker again (floe serve --with-worker starts the bundled one), then reload.", observer, why, format)
	}
	return "", fail(ErrNotObserved,
		"No worker has looked at this table yet, and none that can preview %s tables is connected. "+
			"Start a worker (floe serve --with-worker starts the bundled one), then reload.", format)
}

// Fetch asks a worker for rows and renders them. When ctx ends (the browser
// went away) the worker is told to cancel. With Relay on, a table no worker
// connected here can read is asked of the other replicas' workers.
func (b *Broker) Fetch(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	res, err := b.fetchLocal(ctx, req)
	if b.relay != nil && (errors.Is(err, ErrNotObserved) || errors.Is(err, ErrWorkerGone)) {
		res, err = b.fetchRemote(ctx, req, err)
	}
	b.observe(req.Format, time.Since(start), err)
	return res, err
}

// fetchLocal is Fetch through the workers connected to this replica.
func (b *Broker) fetchLocal(ctx context.Context, req Request) (*Result, error) {
	limit := req.RowLimit
	if limit <= 0 {
		limit = DefaultRowLimit
	}
	limit = min(limit, MaxRowLimit)
	workerID, err := b.pickWorker(req)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	call, err := b.w.StartPreview(tctx, workerID, plugin.PreviewRequest{
		ObjectID: req.ObjectID, Format: string(req.Format), RowLimit: limit,
		Columns: req.Columns, Filter: req.Filter, Version: req.Version, Offset: min(max(req.Offset, 0), MaxOffset),
	})
	if err != nil {
		return nil, b.callError(ctx, workerID, err)
	}
	defer call.Close()
	var buf bytes.Buffer
	var done *plugin.PreviewDone
	for done == nil {
		part, err := call.Next(tctx)
		if err != nil {
			return nil, b.callError(ctx, workerID, err)
		}
		if buf.Len()+len(part.ArrowIPC) > b.maxBytes {
			return nil, fail(ErrTooLarge,
				"The preview is larger than %d KiB; choose fewer columns or rows.", b.maxBytes>>10)
		}
		buf.Write(part.ArrowIPC)
		done = part.Done
	}
	if e := done.Error; e != "" {
		if req.Filter != "" && b.readsWithoutFilter(ctx, workerID, req) {
			return nil, fail(ErrBadFilter,
				"The filter was refused: %s Check its column names and SQL syntax, or clear it.", endSentence(e))
		}
		return nil, fail(ErrWorker,
			"Worker %s could not read the table: %s Check the worker's log; if the table was just changed, reload.", workerID, endSentence(e))
	}
	res, err := Decode(buf.Bytes(), limit)
	if err != nil {
		return nil, fail(ErrDecode,
			"Worker %s sent rows that could not be read as Arrow IPC (%v); update the worker.", workerID, err)
	}
	res.WorkerID = workerID
	res.TotalRows = done.TotalRows
	res.Offset = min(max(req.Offset, 0), MaxOffset)
	if done.Truncated || (res.TotalRows >= 0 && res.Offset+int64(res.RowsRead) < res.TotalRows) {
		res.Truncated = true
	}
	return res, nil
}

// readsWithoutFilter asks the worker for one row of the same read without
// the filter. Workers report every failure as a sentence, with no kind, so
// this is how a refused filter (the operator's to fix: a 4xx) is told from
// a table the worker cannot read (a 5xx). It costs one more small read, and
// only when a filtered read has failed.
func (b *Broker) readsWithoutFilter(ctx context.Context, workerID string, req Request) bool {
	tctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	call, err := b.w.StartPreview(tctx, workerID, plugin.PreviewRequest{
		ObjectID: req.ObjectID, Format: string(req.Format), RowLimit: 1, Columns: req.Columns, Version: req.Version})
	if err != nil {
		return false
	}
	defer call.Close()
	for {
		part, err := call.Next(tctx)
		if err != nil {
			return false
		}
		if part.Done != nil {
			return part.Done.Error == ""
		}
	}
}

func (b *Broker) callError(ctx context.Context, workerID string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err() // the caller left; nobody reads a sentence
	case errors.Is(err, context.DeadlineExceeded):
		return fail(ErrTimeout,
			"Worker %s did not answer within %s. The table may be large or the worker busy; try fewer rows or columns, or retry.",
			workerID, b.timeout)
	case errors.Is(err, plugin.ErrWorkerGone), errors.Is(err, plugin.ErrClosed):
		return fail(ErrWorkerGone,
			"Worker %s disconnected before sending the rows. Check that it is running, then reload.", workerID)
	default:
		return fail(ErrWorker,
			"Could not ask worker %s for rows: %s", workerID, endSentence(err.Error()))
	}
}

// endSentence closes a message someone else wrote (a worker's error, an
// error's text) with one full stop, so quoting it never reads "..": a
// message already ending in '.', '!' or '?' is kept as it is.
func endSentence(msg string) string {
	msg = strings.TrimSpace(msg)
	switch {
	case msg == "":
		return "no reason given."
	case strings.HasSuffix(msg, "."), strings.HasSuffix(msg, "!"), strings.HasSuffix(msg, "?"):
		return msg
	default:
		return msg + "."
	}
}
