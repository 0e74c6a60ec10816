package main

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/taskapi"
	"github.com/floe/floe/tasks"
)

// taskAPIPrefix is where the Lance maintenance task API lives on the Lance
// address, beside the Lance Namespace REST routes.
const taskAPIPrefix = "/lance/oss/v1/"

// lanceHandler serves the Lance Namespace REST catalog and the task API.
func lanceHandler(st *catalog.Store, log *slog.Logger, c serveConfig, ts *tasks.Service) http.Handler {
	cfg := lancerest.Config{Store: st, Logger: log, Anonymous: c.LanceAnonymous}
	if c.clients != nil {
		cfg.Storage = c.clients
	}
	ns := lancerest.New(cfg).Handler()
	ta := taskapi.New(taskapi.Config{Store: st, Tasks: ts, Logger: log, Anonymous: c.LanceAnonymous})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, taskAPIPrefix) {
			ta.ServeHTTP(w, r)
			return
		}
		ns.ServeHTTP(w, r)
	})
}

// icebergHandler serves the Iceberg REST catalog.
func icebergHandler(st *catalog.Store, log *slog.Logger, c serveConfig) http.Handler {
	cfg := icebergrest.Config{Store: st, Logger: log, Anonymous: c.IcebergAnonymous, DefaultBucket: c.IcebergDefaultBucket}
	if c.clients != nil {
		cfg.Storage = c.clients
	}
	return icebergrest.New(cfg).Handler()
}
