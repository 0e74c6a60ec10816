// Package runtest runs floe's long-running parts in tests the way floe serve
// runs them: each part is built by its New (which reads and starts
// nothing), reads what it keeps in Load(ctx) if it has one, and works in
// Run(ctx) until ctx ends, returning once every goroutine it started has.
package runtest

import (
	"context"
	"sync"
	"testing"
)

// Runner is a long-running part.
type Runner interface {
	Run(ctx context.Context) error
}

// Loader is a part that reads its stored state before it runs.
type Loader interface {
	Load(ctx context.Context) error
}

// Start loads every part that is a Loader, in order, then runs each part's
// Run in a goroutine of its own, as floe serve does. When the test ends
// (before every cleanup registered earlier, such as closing the database)
// it cancels them, waits until every Run has returned, and fails the test
// for any Run that returned an error.
func Start(t testing.TB, parts ...Runner) {
	t.Helper()
	for _, p := range parts {
		if l, ok := p.(Loader); ok {
			if err := l.Load(context.Background()); err != nil {
				t.Fatalf("%T: Load: %v", p, err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make([]error, len(parts))
	for i, p := range parts {
		wg.Go(func() { errs[i] = p.Run(ctx) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("part %d (%T): Run: %v", i, parts[i], err)
			}
		}
	})
}

// Func adapts a function of Run's shape to a Runner.
type Func func(ctx context.Context) error

// Run calls f.
func (f Func) Run(ctx context.Context) error { return f(ctx) }
