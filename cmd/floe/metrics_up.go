package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/web"
)

// upPingTimeout bounds the database ping one scrape makes, as /readyz's
// does, so a stuck database reads as down instead of hanging the scrape.
const upPingTimeout = 2 * time.Second

// registerUpGauges adds floe_database_up{backend} and
// floe_storage_up{backend} to reg: 1 when the catalog database answers a
// ping at scrape time, and when the warehouse store answered its last
// health check (an s3:// store, checked every 15 s in the background) or
// its directory is there (a local one). They are the readiness checks of
// /readyz as series, so an alert needs no probe of its own.
func registerUpGauges(reg prometheus.Registerer, db *persist.DB, storage web.StorageHealth, warehouseDir string) error {
	dbUp := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "floe_database_up",
		Help:        "1 when the catalog database answers a ping at scrape time, else 0.",
		ConstLabels: prometheus.Labels{"backend": db.Dialect().Name},
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), upPingTimeout)
		defer cancel()
		return up(db.Ping(ctx) == nil)
	})
	backend, check := "local", func() bool {
		fi, err := os.Stat(warehouseDir)
		return err == nil && fi.IsDir()
	}
	if storage != nil {
		backend, check = "s3", func() bool { return storage.Status().OK }
	}
	storageUp := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "floe_storage_up",
		Help:        "1 when the warehouse store answered its last health check (local: its directory exists), else 0.",
		ConstLabels: prometheus.Labels{"backend": backend},
	}, func() float64 { return up(check()) })
	return errors.Join(reg.Register(dbUp), reg.Register(storageUp))
}

func up(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}
