package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/spf13/pflag"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/s3tables"
	"github.com/floe/floe/web"
)

// s3tablesConfig is what `floe serve` reads for the S3 Tables surface.
type s3tablesConfig struct {
	Addr, Region, Account string
}

func (c *s3tablesConfig) addFlags(f *pflag.FlagSet) {
	f.StringVar(&c.Addr, "s3tables", "127.0.0.1:9102", `AWS S3 Tables control API (SigV4) address ("" = off)`)
	f.StringVar(&c.Region, "s3tables-region", s3tables.DefaultRegion, "region in S3 Tables ARNs; SigV4 requests must be signed for it")
	f.StringVar(&c.Account, "s3tables-account", s3tables.DefaultAccount, "account id in S3 Tables ARNs")
}

// s3tablesHandler serves the S3 Tables control API over the catalog, with
// maintenance job status read from the plugin's jobs; it refuses the
// formats whose catalog is off (an empty bound address in surfaces).
func s3tablesHandler(st *catalog.Store, az *authz.Authorizer, log *slog.Logger, c s3tablesConfig, p *plugin.Plugin, m *edge.Metrics, surfaces web.Surfaces, aud edge.Auditor) http.Handler {
	var off []catalog.Format
	if surfaces.Iceberg == "" {
		off = append(off, catalog.FormatIceberg)
	}
	if surfaces.Lance == "" {
		off = append(off, catalog.FormatLance)
	}
	return s3tables.New(s3tables.Config{Store: st, Logger: log, Region: c.Region, Account: c.Account, Jobs: pluginJobs{p},
		Metrics: m, FormatsOff: off, Auditor: aud, Authz: az}).Handler()
}

// tableJobPage bounds the jobs read for one GetTableMaintenanceJobStatus:
// the newest finished job of each kind is almost always among them.
const tableJobPage = 100

// pluginJobs answers s3tables.JobHistory from the plugin's job store.
type pluginJobs struct{ p *plugin.Plugin }

func (j pluginJobs) TableJobs(ctx context.Context, tableID string) ([]s3tables.JobRun, error) {
	if j.p == nil {
		return nil, nil
	}
	jobs, _, err := j.p.ListJobs(ctx, plugin.JobFilter{ObjectID: tableID, Limit: tableJobPage})
	if err != nil {
		return nil, err
	}
	out := make([]s3tables.JobRun, 0, len(jobs))
	for _, jb := range jobs {
		out = append(out, s3tables.JobRun{Type: jb.Type, State: string(jb.State), Error: jb.Error, Finished: jb.FinishedAt, Created: jb.CreatedAt})
	}
	return out, nil
}
