// Package plugintest is a scripted worker for tests: it speaks the plugin
// protocol over a real gRPC connection, answers DescribeJobType, Detect,
// Execute and Preview with functions the test supplies, and records what
// the console sent (cancels in particular).
package plugintest

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/floe/floe/plugin/pluginpb"
)

// outboxCap bounds the test worker's own send queue.
const outboxCap = 1024

// Config scripts a worker. Nil handlers answer with nothing useful: Detect
// with no proposals, Execute with success, Preview with an error.
type Config struct {
	Token          string // sent as "authorization: Bearer <token>"; empty sends none
	WorkerID       string
	InstanceID     string // default: a fresh value
	Version        string
	Capabilities   []*pluginpb.Capability
	PreviewFormats []string
	Descriptors    map[string]*pluginpb.Descriptor // by job type

	OnDetect func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error)
	// DetectSkipped goes in every DetectionDone: tables not proposed, and why.
	DetectSkipped []*pluginpb.Proposal
	OnExecute     func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed
	// OnPreview returns Arrow IPC chunks and the closing PreviewDone.
	OnPreview func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone)

	// HeartbeatEvery sends heartbeats on this period (0: only by hand).
	HeartbeatEvery time.Duration
	// SkipHello starts the stream without a Hello (protocol-error tests).
	SkipHello bool
}

// Worker is a connected test worker.
type Worker struct {
	cfg    Config
	stream pluginpb.PluginService_ConnectClient
	ctx    context.Context
	cancel context.CancelFunc
	out    chan *pluginpb.WorkerMessage
	wg     sync.WaitGroup

	mu       sync.Mutex
	received []*pluginpb.ConsoleMessage
	running  map[string]context.CancelFunc // job id or request id → cancel
	cancels  []*pluginpb.Cancel
	notify   chan struct{} // cap 1: something was received

	errOnce sync.Once
	err     error
	done    chan struct{}
}

// Connect opens the stream on conn and sends Hello.
func Connect(ctx context.Context, conn *grpc.ClientConn, cfg Config) (*Worker, error) {
	if cfg.InstanceID == "" {
		cfg.InstanceID = "inst-" + time.Now().Format("150405.000000000")
	}
	ctx, cancel := context.WithCancel(ctx)
	if cfg.Token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cfg.Token)
	}
	stream, err := pluginpb.NewPluginServiceClient(conn).Connect(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	w := &Worker{cfg: cfg, stream: stream, ctx: ctx, cancel: cancel, out: make(chan *pluginpb.WorkerMessage, outboxCap),
		running: map[string]context.CancelFunc{}, notify: make(chan struct{}, 1), done: make(chan struct{})}
	if !cfg.SkipHello {
		w.out <- &pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Hello{Hello: &pluginpb.Hello{
			WorkerId: cfg.WorkerID, InstanceId: cfg.InstanceID, Version: cfg.Version,
			Capabilities: cfg.Capabilities, PreviewFormats: cfg.PreviewFormats,
		}}}
	}
	w.wg.Go(w.writeLoop)
	w.wg.Go(w.readLoop)
	if cfg.HeartbeatEvery > 0 {
		w.wg.Go(w.heartbeatLoop)
	}
	return w, nil
}

func (w *Worker) fail(err error) {
	w.errOnce.Do(func() {
		w.err = err
		close(w.done)
		w.cancel()
	})
}

// Done is closed when the stream ends; Err then tells why.
func (w *Worker) Done() <-chan struct{} { return w.done }

// Err is the error that ended the stream (nil while open).
func (w *Worker) Err() error {
	select {
	case <-w.done:
		return w.err
	default:
		return nil
	}
}

// Close ends the stream and waits for the worker's goroutines.
func (w *Worker) Close() {
	w.fail(errors.New("closed by the test"))
	w.wg.Wait()
}

// Send queues a message (the writer goroutine is the only Send caller).
func (w *Worker) Send(m *pluginpb.WorkerMessage) {
	select {
	case w.out <- m:
	case <-w.ctx.Done():
	}
}

// Heartbeat sends one heartbeat.
func (w *Worker) Heartbeat(used, total int, running ...string) {
	w.Send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Heartbeat{Heartbeat: &pluginpb.Heartbeat{
		SlotsUsed: int32(used), SlotsTotal: int32(total), RunningJobIds: running}}})
}

// Observe sends observations.
func (w *Worker) Observe(obs ...*pluginpb.Observation) {
	w.Send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Observations{Observations: &pluginpb.Observations{
		Observations: obs}}})
}

// Cancels returns the Cancel messages received so far.
func (w *Worker) Cancels() []*pluginpb.Cancel {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*pluginpb.Cancel(nil), w.cancels...)
}

// Received returns every console message received so far.
func (w *Worker) Received() []*pluginpb.ConsoleMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*pluginpb.ConsoleMessage(nil), w.received...)
}

// WaitFor blocks until cond holds over the received messages or ctx ends.
func (w *Worker) WaitFor(ctx context.Context, cond func(received []*pluginpb.ConsoleMessage) bool) error {
	for {
		if cond(w.Received()) {
			return nil
		}
		select {
		case <-w.notify:
		case <-w.done:
			if cond(w.Received()) {
				return nil
			}
			return w.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *Worker) writeLoop() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case m := <-w.out:
			if err := w.stream.Send(m); err != nil {
				if !errors.Is(err, io.EOF) { // io.EOF: the status comes from Recv
					w.fail(err)
				}
				return
			}
		}
	}
}

func (w *Worker) heartbeatLoop() {
	t := time.NewTicker(w.cfg.HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
			w.mu.Lock()
			var ids []string
			for id := range w.running {
				ids = append(ids, id)
			}
			w.mu.Unlock()
			w.Heartbeat(len(ids), 4, ids...)
		}
	}
}

func (w *Worker) readLoop() {
	for {
		m, err := w.stream.Recv()
		if err != nil {
			w.fail(err)
			return
		}
		w.mu.Lock()
		w.received = append(w.received, m)
		if c := m.GetCancel(); c != nil {
			w.cancels = append(w.cancels, c)
			for _, id := range []string{c.GetTargetRequestId(), c.GetJobId()} {
				if stop, ok := w.running[id]; ok {
					stop()
				}
			}
		}
		w.mu.Unlock()
		select {
		case w.notify <- struct{}{}:
		default:
		}
		w.handle(m)
	}
}

// track registers a cancellable unit of work under id.
func (w *Worker) track(id string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(w.ctx)
	w.mu.Lock()
	w.running[id] = cancel
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		delete(w.running, id)
		w.mu.Unlock()
		cancel()
	}
}

func (w *Worker) handle(m *pluginpb.ConsoleMessage) {
	rid := m.GetRequestId()
	reply := func(body *pluginpb.WorkerMessage) {
		body.RequestId = rid
		w.Send(body)
	}
	switch b := m.GetBody().(type) {
	case *pluginpb.ConsoleMessage_DescribeJobType:
		d, ok := w.cfg.Descriptors[b.DescribeJobType.GetJobType()]
		if !ok {
			d = &pluginpb.Descriptor{JobType: b.DescribeJobType.GetJobType()}
		}
		reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_JobDescriptor{JobDescriptor: d}})
	case *pluginpb.ConsoleMessage_Detect:
		w.wg.Go(func() {
			ctx, done := w.track(rid)
			defer done()
			var props []*pluginpb.Proposal
			var err error
			if w.cfg.OnDetect != nil {
				props, err = w.cfg.OnDetect(ctx, b.Detect)
			}
			if ctx.Err() != nil {
				return // cancelled: say nothing more
			}
			if len(props) > 0 {
				reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Proposals{Proposals: &pluginpb.Proposals{
					JobType: b.Detect.GetJobType(), Proposals: props}}})
			}
			dd := &pluginpb.DetectionDone{JobType: b.Detect.GetJobType(), Skipped: w.cfg.DetectSkipped}
			if err != nil {
				dd.Error = err.Error()
			}
			reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_DetectionDone{DetectionDone: dd}})
		})
	case *pluginpb.ConsoleMessage_Execute:
		job := b.Execute.GetJob()
		w.wg.Go(func() {
			ctx, done := w.track(job.GetJobId())
			defer done()
			progress := func(p *pluginpb.Progress) {
				p.JobId = job.GetJobId()
				reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Progress{Progress: p}})
			}
			c := &pluginpb.Completed{Success: true, Summary: "done"}
			if w.cfg.OnExecute != nil {
				c = w.cfg.OnExecute(ctx, job, progress)
			}
			if c == nil || ctx.Err() != nil {
				return
			}
			c.JobId = job.GetJobId()
			reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Completed{Completed: c}})
		})
	case *pluginpb.ConsoleMessage_Preview:
		w.wg.Go(func() {
			ctx, done := w.track(rid)
			defer done()
			if w.cfg.OnPreview == nil {
				reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_PreviewDone{PreviewDone: &pluginpb.PreviewDone{
					Error: "this test worker has no preview"}}})
				return
			}
			chunks, pd := w.cfg.OnPreview(ctx, b.Preview)
			if ctx.Err() != nil {
				return
			}
			for _, c := range chunks {
				reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_PreviewChunk{PreviewChunk: &pluginpb.PreviewChunk{ArrowIpc: c}}})
			}
			if pd != nil {
				reply(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_PreviewDone{PreviewDone: pd}})
			}
		})
	}
}
