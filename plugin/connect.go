package plugin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/plugin/pluginpb"
)

// heartbeatIntervalSeconds is what Welcome asks workers to send; a third of
// the default stale timeout, so two lost heartbeats do not mark a worker stale.
const heartbeatIntervalSeconds = 10

// maxWorkerIDLen bounds ids shown in pages and logs.
const maxWorkerIDLen = 200

// Connect serves one worker stream. The handler goroutine supervises: it
// starts a reader and the session's writer, waits for the session to end,
// then waits for the writer, so nothing sends after the handler returns.
func (p *Plugin) Connect(stream pluginpb.PluginService_ConnectServer) error {
	done, ok := p.track()
	if !ok {
		return errUnavailable()
	}
	defer done()
	tok, err := p.authenticate(stream.Context())
	if err != nil {
		return err
	}
	// This connection now carries an authenticated stream: its listener
	// keeps it while the stream runs (connHolder).
	if h := p.holder.Load(); h != nil {
		if pr, ok := peer.FromContext(stream.Context()); ok {
			defer (*h).Hold(pr.Addr)()
		}
	}
	first, err := p.recvHello(stream)
	if err != nil {
		return err
	}
	hello := first.GetHello()
	if err := validateHello(hello); err != nil {
		return err
	}
	now := p.now()
	// The session ends with the stream or with the plugin's root context.
	s := newSession(stream.Context(), hello, tok, now)
	defer s.cancel(context.Canceled)
	stopRoot := context.AfterFunc(p.root, func() { s.cancel(ErrClosed) })
	defer stopRoot()
	log := p.log.With("worker", s.workerID, "instance", s.instanceID)

	// Welcome is queued before the session is visible, so it goes first;
	// the queue is empty and buffered, so this cannot block.
	s.out <- &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Welcome{Welcome: &pluginpb.Welcome{
		ConsoleVersion: p.cfg.ConsoleVersion, HeartbeatIntervalSeconds: heartbeatIntervalSeconds,
		JobParams: p.welcomeParams,
	}}}
	// Jobs dispatched to earlier sessions of this worker are marked before
	// the new session can receive any, so the first heartbeat settles
	// exactly those.
	if taken := p.reg.takenByOther(s.workerID, tok.ID); taken {
		log.Warn("worker id refused: it is connected under another worker token", "token", tok.Name)
		return status.Errorf(codes.PermissionDenied, "worker id %q is connected under another worker token; give this worker its own id", s.workerID)
	}
	p.jobs.onConnect(s)
	old, err := p.reg.add(s)
	if err != nil {
		log.Warn("worker id refused: it is connected under another worker token", "token", tok.Name)
		return status.Errorf(codes.PermissionDenied, "worker id %q is connected under another worker token; give this worker its own id", s.workerID)
	}
	if old != nil {
		log.Warn("worker id connected again; the older stream is replaced",
			"old_instance", old.instanceID, "new_instance", s.instanceID,
			"hint", "if both processes are alive they share one worker id; give each worker its own id")
	} else {
		log.Info("worker connected", "version", s.version, "capabilities", len(s.caps), "token", tok.Name)
	}
	p.events.publish(Event{Kind: EventWorker, WorkerID: s.workerID})

	writerDone := make(chan struct{})
	p.wg.Go(func() {
		defer close(writerDone)
		p.writeLoop(stream, s)
	})

	p.wg.Go(func() { p.readLoop(stream, s, log) })
	p.wg.Go(func() { p.types.onHello(s) })

	<-s.ctx.Done()
	<-writerDone
	if p.reg.remove(s, p.now()) {
		p.jobs.onDisconnect(s)
		p.events.publish(Event{Kind: EventWorker, WorkerID: s.workerID})
	}
	cause := context.Cause(s.ctx)
	switch {
	case errors.Is(cause, errRevoked):
		log.Info("worker stream closed: its worker token was revoked")
		return status.Error(codes.Unauthenticated, "the worker token of this stream was revoked; create a new one with `floe worker-token create`")
	case errors.Is(cause, errReplaced):
		log.Info("worker stream closed: replaced by a newer connection")
		return status.Error(codes.Aborted, "another connection with this worker id replaced this one")
	case errors.Is(cause, ErrClosed):
		return errUnavailable()
	case errors.Is(cause, io.EOF), errors.Is(cause, context.Canceled), status.Code(cause) == codes.Canceled:
		log.Info("worker disconnected")
		return nil
	case errors.Is(cause, errSilent):
		return status.Error(codes.DeadlineExceeded, "no heartbeat for too long; reconnect and send heartbeats")
	default:
		log.Warn("worker stream ended", "err", cause)
		return nil
	}
}

func (p *Plugin) recvHello(stream pluginpb.PluginService_ConnectServer) (*pluginpb.WorkerMessage, error) {
	type recvd struct {
		m   *pluginpb.WorkerMessage
		err error
	}
	ch := make(chan recvd, 1) // buffered: the receiver may be gone when Recv returns
	p.wg.Go(func() {
		m, err := stream.Recv()
		ch <- recvd{m, err}
	})
	t := time.NewTimer(p.cfg.HelloTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.m, r.err
	case <-t.C:
		return nil, status.Errorf(codes.DeadlineExceeded, "no Hello within %s of opening the stream; send Hello first", p.cfg.HelloTimeout)
	case <-p.root.Done():
		return nil, errUnavailable()
	}
}

func validateHello(h *pluginpb.Hello) error {
	switch {
	case h == nil:
		return status.Error(codes.InvalidArgument, "the first message must be Hello")
	case h.GetWorkerId() == "":
		return status.Error(codes.InvalidArgument, "Hello.worker_id is required: give each worker a stable, unique id")
	case len(h.GetWorkerId()) > maxWorkerIDLen:
		return status.Error(codes.InvalidArgument, "Hello.worker_id is longer than 200 characters")
	case !printableID(h.GetWorkerId()):
		return status.Error(codes.InvalidArgument, "Hello.worker_id must be printable UTF-8 without control characters; it is shown in pages and logs")
	}
	for _, c := range h.GetCapabilities() {
		if c.GetJobType() == "" {
			return status.Error(codes.InvalidArgument, "every Hello capability needs a job_type")
		}
	}
	return nil
}

// writeLoop is the only caller of stream.Send for this session.
func (p *Plugin) writeLoop(stream pluginpb.PluginService_ConnectServer, s *session) {
	for {
		select {
		case <-s.ctx.Done():
			if errors.Is(context.Cause(s.ctx), ErrClosed) {
				// Best effort: tell the worker why; the handler has not
				// returned yet, so this Send is still allowed.
				_ = stream.Send(&pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Shutdown{
					Shutdown: &pluginpb.Shutdown{Reason: "console shutting down"}}})
			}
			return
		case m := <-s.out:
			if err := stream.Send(m); err != nil {
				s.cancel(err)
				return
			}
		}
	}
}

// readLoop receives until the stream fails, dispatching each message.
func (p *Plugin) readLoop(stream pluginpb.PluginService_ConnectServer, s *session, log *slog.Logger) {
	for {
		m, err := stream.Recv()
		if err != nil {
			s.cancel(err)
			return
		}
		if s.ctx.Err() != nil {
			return // replaced or shut down: later messages belong to no one
		}
		p.handle(s, m, log)
	}
}

func (p *Plugin) handle(s *session, m *pluginpb.WorkerMessage, log *slog.Logger) {
	now := p.now()
	switch b := m.GetBody().(type) {
	case *pluginpb.WorkerMessage_Heartbeat:
		if s.heartbeat(b.Heartbeat, now) {
			p.jobs.onFirstHeartbeat(s, b.Heartbeat.GetRunningJobIds())
		}
		p.jobs.onHeartbeat(s, b.Heartbeat.GetRunningJobIds())
	case *pluginpb.WorkerMessage_Observations:
		s.touch(now)
		p.ingestObservations(s, b.Observations.GetObservations())
	case *pluginpb.WorkerMessage_Progress:
		s.touch(now)
		p.jobs.onProgress(s, b.Progress)
	case *pluginpb.WorkerMessage_Completed:
		s.touch(now)
		p.jobs.onCompleted(s, b.Completed)
	case *pluginpb.WorkerMessage_Hello:
		log.Warn("ignoring a second Hello on an open stream; reconnect to change capabilities")
	case nil:
		log.Debug("ignoring an empty message")
	default:
		s.touch(now)
		if !p.pending.deliver(s, m) {
			log.Debug("ignoring a reply to an unknown or finished request", "request_id", m.GetRequestId())
		}
	}
}

// printableID reports whether id is valid UTF-8 with no control or format
// characters (which would forge lines in logs or hide text in pages).
func printableID(id string) bool {
	if !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
