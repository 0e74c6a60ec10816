package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The bundled Lance worker is a Node.js program; `floe serve --with-worker`
// runs it as a child process and keeps it running.
const (
	workerScript = "workers/lance/main.mjs"
	demoScript   = "workers/lance/demo.mjs"
	// workerStopGrace is how long the worker gets after SIGTERM to close its
	// stream and stop its executions before it is killed.
	workerStopGrace = 10 * time.Second
	// Restart backoff: quick after a crash, capped so a worker that cannot
	// start (bad token, broken install) does not spin.
	workerRestartMin = time.Second
	workerRestartMax = 30 * time.Second
	// workerHealthyRun resets the backoff: a worker that ran this long
	// before dying is restarted promptly again.
	workerHealthyRun = time.Minute
	// demoTimeout bounds the one-time demo seeding (20,000 rows in 12 appends).
	demoTimeout = 5 * time.Minute
	// demoMarker in the data directory records that the demo was seeded.
	demoMarker = ".demo-seeded"
)

// findWorkerRoot finds the directory holding workers/lance and node_modules:
// the working directory or one of its parents, else the binary's directory
// or one of its parents (bin/floe sits one below the repository root).
func findWorkerRoot(script string) (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		dir := s
		for range 5 {
			if _, err := os.Stat(filepath.Join(dir, script)); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find %s under the working directory or beside the floe binary; run floe from the repository root", script)
}

// nodeCommand checks node and the installed packages and returns the node
// path and the root directory to run script from.
func nodeCommand(script string) (node, root string, err error) {
	root, err = findWorkerRoot(script)
	if err != nil {
		return "", "", err
	}
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", errors.New("node is not on PATH: the Lance worker needs Node.js 20 or newer (then run npm ci)")
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@lancedb", "lancedb")); err != nil {
		return "", "", fmt.Errorf("%s has no node_modules/@lancedb/lancedb: run npm ci in %s", root, root)
	}
	return node, root, nil
}

// lanceWorkerChild checks that the bundled Lance worker (node
// workers/lance/main.mjs) can start and returns supervise, which runs it
// with env added to floe's environment, restarts it with backoff when it
// dies, forwards its output lines to log, and stops it (SIGTERM, then a
// kill after workerStopGrace) when ctx ends; supervise returns once the
// worker has stopped for good.
func lanceWorkerChild(ctx context.Context, log *slog.Logger, env []string) (supervise func(), err error) {
	node, root, err := nodeCommand(workerScript)
	if err != nil {
		return nil, err
	}
	log = log.With("component", "lance-worker")
	return func() {
		superviseChild(ctx, log, "lance worker", func() error {
			return runNode(ctx, log, node, root, workerScript, env)
		})
	}, nil
}

// superviseChild runs a bundled worker through run until ctx ends,
// restarting it with a doubling backoff (reset after a healthy run) when it
// exits, and returns once it has stopped for good. It runs on its caller's
// goroutine (the server's errgroup).
func superviseChild(ctx context.Context, log *slog.Logger, name string, run func() error) {
	backoff := workerRestartMin
	for {
		started := time.Now()
		err := run()
		if ctx.Err() != nil {
			log.Info(name + " stopped")
			return
		}
		if time.Since(started) >= workerHealthyRun {
			backoff = workerRestartMin
		}
		log.Warn(name+" exited; restarting", "err", errString(err), "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, workerRestartMax)
	}
}

// seedDemoOnce runs workers/lance/demo.mjs once per data directory: when
// <dataDir>/.demo-seeded is absent it seeds the demo bucket through floe's
// Lance REST (env carries FLOE_LANCE_URL and FLOE_API_KEY) and writes the
// marker after success.
func seedDemoOnce(ctx context.Context, log *slog.Logger, dataDir string, env []string) error {
	marker := filepath.Join(dataDir, demoMarker)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	node, root, err := nodeCommand(demoScript)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	log = log.With("component", "lance-demo")
	if err := runNode(ctx, log, node, root, demoScript, env); err != nil {
		return fmt.Errorf("seed the demo data: %w", err)
	}
	if err := os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return fmt.Errorf("record that the demo was seeded: %w", err)
	}
	log.Info("demo data seeded", "marker", marker)
	return nil
}

// runNode runs one node script to its end, forwarding stdout and stderr
// lines to log; when ctx ends the process gets SIGTERM and, after
// workerStopGrace, a kill.
func runNode(ctx context.Context, log *slog.Logger, node, root, script string, env []string) error {
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, script))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = workerStopGrace
	// Writers rather than pipes: cmd.Wait then owns the copying, and
	// WaitDelay bounds it even if a grandchild keeps the pipe open.
	out := &lineLogger{log: log}
	cmd.Stdout = out
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	out.flush()
	return err
}

// maxWorkerLine caps one buffered line; a longer one is logged in pieces.
const maxWorkerLine = 64 << 10

// lineLogger logs each complete line written to it at the level the worker
// wrote in it ("level=warn msg=..."), so floe's log carries the worker's own
// words. stdout and stderr share it, hence the lock.
type lineLogger struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.emit(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxWorkerLine {
		l.emit(string(l.buf))
		l.buf = l.buf[:0]
	}
	return len(p), nil
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(string(l.buf))
		l.buf = nil
	}
}

func (l *lineLogger) emit(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	level := slog.LevelInfo
	for prefix, lv := range map[string]slog.Level{"level=error ": slog.LevelError, "level=warn ": slog.LevelWarn, "level=info ": slog.LevelInfo, "level=debug ": slog.LevelDebug} {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			level, line = lv, rest // the level moves into floe's own record
			break
		}
	}
	l.log.Log(context.Background(), level, "worker", "line", line)
}

func errString(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	return err.Error()
}
