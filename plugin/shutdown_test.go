package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func TestShutdownWithOpenStreams(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	// detecting is closed when a worker is inside Detect: only then is the
	// waiter surely in flight (the pending map also holds describe calls).
	detecting := make(chan struct{})
	var once sync.Once
	block := func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
		once.Do(func() { close(detecting) })
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var workers []*plugintest.Worker
	for i := range 3 {
		workers = append(workers, h.connect(plugintest.Config{WorkerID: fmt.Sprintf("w%d", i),
			Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
			Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")}, OnDetect: block}))
	}
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	errc := make(chan error, 1)
	go func() { _, err := h.p.RunDetection(context.Background(), "lance_compact"); errc <- err }()
	select {
	case <-detecting:
	case err := <-errc:
		t.Fatalf("detection ended before any worker ran it: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.p.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) && !errors.Is(err, ErrWorkerGone) {
		t.Fatalf("waiter err = %v", err)
	}
	for _, w := range workers {
		<-w.Done()
	}
	if _, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("SubmitJob after shutdown: %v", err)
	}
}
