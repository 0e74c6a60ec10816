package persist

import "context"

// Statement is one SQL statement a DB was asked to run, with its arguments,
// as the driver receives it (placeholders already in the dialect's form).
type Statement struct {
	Query string
	Args  []any
}

type traceKey struct{}

// WithTrace returns a context under which Open makes a DB that calls fn
// with every statement run through it (reads, Write's transactions and
// ExecContext; not migrations, which only touch the schema), before the
// statement runs, on the caller's goroutine. A statement a transaction
// prepares itself (Tx.PrepareContext) is reported once, as it is prepared,
// without arguments. It is how a test sees what a
// whole program reads, such as floe serve's start-up, without reaching
// into it: the context carries the hook the way net/http/httptrace's does.
// fn must be safe for concurrent use. A DB opened without it traces
// nothing and pays one nil check per statement.
func WithTrace(ctx context.Context, fn func(Statement)) context.Context {
	return context.WithValue(ctx, traceKey{}, fn)
}

func traceFrom(ctx context.Context) func(Statement) {
	fn, _ := ctx.Value(traceKey{}).(func(Statement))
	return fn
}

// traceStmt reports a statement to the trace, if there is one.
func traceStmt(fn func(Statement), query string, args []any) {
	if fn != nil {
		fn(Statement{Query: query, Args: args})
	}
}
