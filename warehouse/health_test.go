package warehouse

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

type fakePinger struct {
	Local // any Backend; only Ping matters here
	down  atomic.Bool
}

func (f *fakePinger) Ping(context.Context) error {
	if f.down.Load() {
		return errors.New("the S3 store at http://x cannot be reached")
	}
	return nil
}

func TestHealthFollowsTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePinger{}
		h := NewHealth(p)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { h.Run(ctx); close(done) }()

		steps := []struct {
			down   bool
			wantOK bool
		}{{false, true}, {true, false}, {false, true}}
		for _, s := range steps {
			p.down.Store(s.down)
			time.Sleep(healthInterval + time.Second)
			synctest.Wait()
			st := h.Status()
			if st.OK != s.wantOK || (!st.OK && st.Reason == "") {
				t.Fatalf("store down=%v: status %+v, want OK=%v with a reason when down", s.down, st, s.wantOK)
			}
		}
		cancel()
		<-done
	})
	if st := NewHealth(&Local{}).Check(t.Context()); !st.OK {
		t.Fatalf("a backend without Ping is %+v, want OK", st)
	}
}
