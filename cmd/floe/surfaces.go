package main

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/sigv4"
	"github.com/floe/floe/taskapi"
)

// taskAPIPrefix is where the Lance maintenance task API lives on the Lance
// address, beside the Lance Namespace REST routes.
const taskAPIPrefix = "/lance/oss/v1/"

// lanceHandler serves the Lance Namespace REST catalog and the task API.
// tokens are the OAuth2 access tokens the Iceberg REST issues; both Lance
// surfaces accept them in place of the key they stand for, and idp (nil
// for none) the identity provider's access tokens. They are two edge
// surfaces (lance, taskapi) counted in the one metrics.
func lanceHandler(st *catalog.Store, az *authz.Authorizer, log *slog.Logger, c serveConfig, svc *services, tokens *apikey.Tokens, idp apikey.IdP, metrics *edge.Metrics, aud edge.Auditor) http.Handler {
	cfg := lancerest.Config{Store: st, Logger: log, Anonymous: c.LanceAnonymous, Tokens: tokens, IdP: idp, Observer: svc.observe, Jobs: svc.plugin, Metrics: metrics, Auditor: aud, Authz: az}
	if c.clients != nil {
		cfg.Storage = c.clients
	}
	ns := lancerest.New(cfg).Handler()
	ta := taskapi.New(taskapi.Config{Store: st, Tasks: svc.tasks, Logger: log, Anonymous: c.LanceAnonymous, Tokens: tokens, IdP: idp, Metrics: metrics, Auditor: aud, Authz: az})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, taskAPIPrefix) {
			ta.ServeHTTP(w, r)
			return
		}
		ns.ServeHTTP(w, r)
	})
}

// icebergHandler serves the Iceberg REST catalog; closing it stops the
// scan plans still computing in the background. Its warehouse may be a
// bucket's S3 Tables ARN, of the region and account the S3 Tables API uses.
func icebergHandler(st *catalog.Store, az *authz.Authorizer, log *slog.Logger, c serveConfig, tokens *apikey.Tokens, idp apikey.IdP, m *edge.Metrics, aud edge.Auditor) (http.Handler, func()) {
	cfg := icebergrest.Config{Store: st, Logger: log, Anonymous: c.IcebergAnonymous, DefaultBucket: c.IcebergDefaultBucket, Tokens: tokens, IdP: idp,
		Region: c.S3.Region, Account: c.S3.Account, Metrics: m, Auditor: aud, Authz: az}
	if c.S3.Region != "" {
		// Engines configured for AWS S3 Tables sign for s3tables; DuckDB and
		// Glue-style clients may sign for glue.
		cfg.SigV4 = sigv4.New(sigv4.Config{Keys: apikey.NewAccessKeys(st, nil), Services: []string{"s3tables", "glue"}, Region: c.S3.Region, MaxBody: icebergrest.MaxBody})
	}
	if c.clients != nil {
		cfg.Storage = c.clients
	}
	srv := icebergrest.New(cfg)
	return srv.Handler(), srv.Close
}
