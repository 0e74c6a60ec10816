package plugin

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/plugin/pluginpb"
)

// StartPreview sends a Preview request to one worker and returns the call
// whose Next yields PreviewChunk and PreviewDone replies. The cluster
// context and object reference are filled in when missing. The preview
// package is the intended caller.
func (p *Plugin) StartPreview(ctx context.Context, workerID string, req *pluginpb.Preview) (*Call, error) {
	s, ok := p.reg.get(workerID)
	if !ok || !s.alive() {
		return nil, fmt.Errorf("%w (worker %s)", ErrWorkerGone, workerID)
	}
	req = proto.Clone(req).(*pluginpb.Preview)
	if req.Cluster == nil {
		cc, err := p.clusterContext(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("mint the worker's API key: %w", err)
		}
		req.Cluster = cc
	}
	if req.Object == nil {
		req.Object = p.objectRef(ctx, req.GetObjectId())
	}
	return p.startCall(s, &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Preview{Preview: req}})
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
