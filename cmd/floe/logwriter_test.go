package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// countingWriter records each write it gets.
type countingWriter struct {
	mu     sync.Mutex
	writes []string
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func (c *countingWriter) got() (n int, all string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes), strings.Join(c.writes, "")
}

// TestLogWriterBatchesBurstsOnly: a line after a quiet spell is written at
// once; a burst's lines go out together, at most logFlushEvery later;
// Close writes what is left.
func TestLogWriterBatchesBurstsOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &countingWriter{}
		l := newLogWriter(out)
		l.Write([]byte("first\n"))
		if n, all := out.got(); n != 1 || all != "first\n" {
			t.Fatalf("a line after a quiet spell: %d writes %q, want it written at once", n, all)
		}
		for i := range 100 {
			l.Write([]byte("burst " + string(rune('a'+i%26)) + "\n"))
		}
		if n, _ := out.got(); n != 1 {
			t.Fatalf("a burst of 100 lines made %d writes before the flush, want them held", n-1)
		}
		time.Sleep(logFlushEvery)
		synctest.Wait()
		n, all := out.got()
		if n != 2 || strings.Count(all, "burst") != 100 {
			t.Fatalf("after %v: %d writes holding %d burst lines, want one write of all 100", logFlushEvery, n, strings.Count(all, "burst"))
		}
		l.Write([]byte("within the period\n"))
		l.Close()
		if _, all := out.got(); !strings.HasSuffix(all, "within the period\n") {
			t.Fatalf("Close left a line unwritten: %q", all)
		}
		l.Write([]byte("after close\n"))
		if _, all := out.got(); !strings.HasSuffix(all, "after close\n") {
			t.Fatal("a line after Close was not written at once")
		}
	})
}

// TestLogWriterKeepsLinesWhole: lines written from many goroutines arrive
// whole and all of them.
func TestLogWriterKeepsLinesWhole(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	l := newLogWriter(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) }))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 500 {
				l.Write([]byte(strings.Repeat(string(rune('a'+g)), 40) + "\n"))
			}
		})
	}
	wg.Wait()
	l.Close()
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	for _, line := range lines {
		if len(line) != 40 || strings.Count(line, line[:1]) != 40 {
			t.Fatalf("a torn line: %q", line)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
