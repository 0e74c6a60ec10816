package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/web"
	"golang.org/x/sync/errgroup"
)

// bundledKeyTTL bounds the API key handed to the demo seeder: it only needs
// to outlive one seeding run.
const bundledKeyTTL = time.Hour

// startBundledWorker mints a worker token for the bundled Lance worker,
// starts it as a child process, and seeds the demo data once per data dir.
// icebergEnv is added to the Iceberg worker's environment (an s3://
// warehouse's settings).
func startBundledWorker(ctx context.Context, st *catalog.Store, log *slog.Logger, paths dataPaths, s web.Surfaces, g *errgroup.Group, icebergEnv []string) error {
	if err := startBundledIcebergWorker(ctx, st, log, s, g, icebergEnv); err != nil {
		log.Error("the bundled Iceberg worker did not start; floe runs without it", "err", err)
	}
	_, token, err := st.CreateSystemWorkerToken(ctx, "bundled-lance-worker", catalog.SystemBundledLanceWorker)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	env := []string{
		"FLOE_GRPC=" + s.GRPC,
		"FLOE_WORKER_TOKEN=" + token,
		"FLOE_WORKER_ID=bundled-lance-" + host,
	}
	supervise, err := lanceWorkerChild(ctx, log, env)
	if err != nil {
		return err
	}
	g.Go(func() error { supervise(); return nil })
	if s.Lance == "" {
		log.Info("demo data not seeded: the Lance REST is off")
		return nil
	}
	_, key, err := st.CreateSystemAPIKey(ctx, "demo-seed", catalog.RoleReadWrite, "", bundledKeyTTL, catalog.SystemDemoSeed)
	if err != nil {
		return fmt.Errorf("mint a key for the demo seeder: %w", err)
	}
	seedEnv := []string{"FLOE_LANCE_URL=" + httpURL(s.Lance), "FLOE_API_KEY=" + key}
	g.Go(func() error {
		if err := seedDemoOnce(ctx, log, paths.Data, seedEnv); err != nil && ctx.Err() == nil {
			log.Warn("demo data not seeded", "err", err)
		}
		return nil
	})
	return nil
}

// startBundledIcebergWorker mints a worker token for the Iceberg worker
// (`floe worker iceberg`, this binary) and runs it as a child process.
func startBundledIcebergWorker(ctx context.Context, st *catalog.Store, log *slog.Logger, s web.Surfaces, g *errgroup.Group, extra []string) error {
	if s.Iceberg == "" {
		log.Info("the Iceberg worker is not started: the Iceberg REST is off")
		return nil
	}
	_, token, err := st.CreateSystemWorkerToken(ctx, "bundled-iceberg-worker", catalog.SystemBundledIcebergWorker)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	supervise, err := icebergWorkerChild(ctx, log, append([]string{
		"FLOE_GRPC=" + s.GRPC,
		"FLOE_WORKER_TOKEN=" + token,
		"FLOE_WORKER_ID=bundled-iceberg-" + host,
	}, extra...))
	if err != nil {
		return err
	}
	g.Go(func() error { supervise(); return nil })
	return nil
}
