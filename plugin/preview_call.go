package plugin

import (
	"context"
	"fmt"

	"slices"

	"github.com/floe/floe/plugin/pluginpb"
)

// PreviewRequest asks a worker for sample rows of one catalog object.
type PreviewRequest struct {
	ObjectID string
	Format   string // "LANCE" or "ICEBERG"
	RowLimit int
	Columns  []string // empty = all
	Filter   string   // engine SQL predicate; empty = none
	Version  uint64   // read as of this version (time travel); 0 = the latest
	Offset   int64    // matching rows skipped before the first one sent
}

// PreviewPart is one reply of a preview: Arrow IPC stream bytes, or, when
// Done is set, the end.
type PreviewPart struct {
	ArrowIPC []byte
	Done     *PreviewDone
}

// PreviewDone ends a preview.
type PreviewDone struct {
	TotalRows int64 // rows in the object, -1 if unknown
	RowsSent  int64
	Truncated bool
	Error     string // non-empty: the worker could not read the object
}

// PreviewCall is a preview in flight; read its parts with Next until one is
// Done, and always Close it.
type PreviewCall struct{ c *call }

// Next returns the next part. When ctx ends first the worker is told to
// cancel and ctx's error is returned; when the worker disconnects,
// ErrWorkerGone comes back at once. Replies of other kinds are skipped.
func (pc *PreviewCall) Next(ctx context.Context) (PreviewPart, error) {
	for {
		m, err := pc.c.Next(ctx)
		if err != nil {
			return PreviewPart{}, err
		}
		switch body := m.GetBody().(type) {
		case *pluginpb.WorkerMessage_PreviewChunk:
			return PreviewPart{ArrowIPC: body.PreviewChunk.GetArrowIpc()}, nil
		case *pluginpb.WorkerMessage_PreviewDone:
			pc.c.Finish()
			d := body.PreviewDone
			return PreviewPart{Done: &PreviewDone{TotalRows: d.GetTotalRows(), RowsSent: d.GetRowsSent(),
				Truncated: d.GetTruncated(), Error: d.GetError()}}, nil
		}
	}
}

// Close forgets the preview; one not yet done is cancelled at the worker.
func (pc *PreviewCall) Close() { pc.c.Close() }

// rowLimitCap keeps a row limit inside the protobuf field's int32.
const rowLimitCap = 1<<31 - 1

// StartPreview sends a preview request to one worker, with the cluster
// context and the object's catalog names filled in. The preview package is
// the intended caller.
func (p *Plugin) StartPreview(ctx context.Context, workerID string, req PreviewRequest) (*PreviewCall, error) {
	s, ok := p.reg.get(workerID)
	if !ok || !s.alive() {
		return nil, fmt.Errorf("%w (worker %s)", ErrWorkerGone, workerID)
	}
	msg := &pluginpb.Preview{ObjectId: req.ObjectID, Format: req.Format,
		RowLimit: int32(min(max(req.RowLimit, 0), rowLimitCap)), Columns: slices.Clone(req.Columns), Filter: req.Filter,
		Version: req.Version, Offset: max(req.Offset, 0)}
	msg.Object = p.objectRef(ctx, req.ObjectID)
	// A preview reads one table: its key reads that table's bucket only.
	cc, err := p.clusterContext(ctx, s, keyScope{privilege: "read", bucket: msg.Object.GetBucket()})
	if err != nil {
		return nil, fmt.Errorf("mint the worker's API key: %w", err)
	}
	msg.Cluster = cc
	c, err := p.startCall(s, &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Preview{Preview: msg}})
	if err != nil {
		return nil, err
	}
	return &PreviewCall{c: c}, nil
}

// PreviewWorkers lists the live workers that advertise previews of format.
func (p *Plugin) PreviewWorkers(format string) []string {
	var out []string
	for _, s := range p.reg.live(p.now()) {
		if s.canPreview(format) {
			out = append(out, s.workerID)
		}
	}
	return out
}

// Connected reports whether a worker has a live session.
func (p *Plugin) Connected(workerID string) bool {
	s, ok := p.reg.get(workerID)
	return ok && s.alive()
}
