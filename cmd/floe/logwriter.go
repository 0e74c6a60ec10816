package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// Caps of the log writer.
const (
	// logFlushEvery is the longest a line waits in the buffer: under a
	// burst of requests (one access line each) lines go out together at
	// most this late; a line after a quiet spell goes out at once.
	logFlushEvery = 10 * time.Millisecond
	// logBufferBytes holds a burst's lines between flushes (about 250
	// access lines); a fuller buffer is written out at once.
	logBufferBytes = 64 << 10
)

// logWriter batches the process's log lines into few writes: one write(2)
// per access line cost floe serve 7% of its CPU per DescribeTable. A line
// is written at once when nothing was written for logFlushEvery, else with
// the next flush at most logFlushEvery later; Close writes what is left.
// What a kill -9 can lose is the last logFlushEvery of lines.
type logWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	last time.Time // the last flush
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// newLogWriter starts the writer's flusher; Close stops it.
func newLogWriter(out io.Writer) *logWriter {
	l := &logWriter{w: bufio.NewWriterSize(out, logBufferBytes), stop: make(chan struct{}), done: make(chan struct{})}
	go l.flusher()
	return l
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if now := time.Now(); now.Sub(l.last) >= logFlushEvery {
		l.last = now
		if ferr := l.w.Flush(); err == nil {
			err = ferr
		}
	}
	return n, err
}

func (l *logWriter) flusher() {
	defer close(l.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.flush()
		}
	}
}

func (l *logWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Buffered() > 0 {
		l.last = time.Now()
		l.w.Flush()
	}
}

// Close stops the flusher and writes what is buffered; later lines are
// written at once.
func (l *logWriter) Close() error {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = time.Time{} // every later Write flushes
	return l.w.Flush()
}
