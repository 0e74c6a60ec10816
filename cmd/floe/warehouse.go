package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/floe/floe/handlers"
	"github.com/floe/floe/warehouse"
	"github.com/spf13/pflag"
)

// s3Flags are the settings of an s3:// warehouse. Credentials are not
// flags: they come from the standard AWS chain (AWS_ACCESS_KEY_ID…,
// ~/.aws/credentials, an instance role), so they never show in `ps`.
type s3Flags struct {
	Endpoint  string
	Region    string
	PathStyle bool
	Vend      string
	// STSRoleARN and STSEndpoint serve --vend-credentials sts.
	STSRoleARN  string
	STSEndpoint string
	// ConditionalPut is --s3-conditional-put: "required" (the default;
	// floe refuses a store that ignores If-None-Match) or "absent".
	ConditionalPut string
}

// The values of --s3-conditional-put.
const (
	conditionalPutRequired = "required"
	conditionalPutAbsent   = "absent"
)

// noConditionalPut reports --s3-conditional-put absent, refusing any
// value but the two.
func (c s3Flags) noConditionalPut() (bool, error) {
	switch c.ConditionalPut {
	case "", conditionalPutRequired:
		return false, nil
	case conditionalPutAbsent:
		return true, nil
	}
	return false, usageError{fmt.Sprintf("--s3-conditional-put is %s or %s, not %q", conditionalPutRequired, conditionalPutAbsent, c.ConditionalPut)}
}

// warehouseCheckTimeout bounds the start-up check of an S3 store: a store
// that has not answered a list and two small PUTs in this long is not one
// floe should start on.
const warehouseCheckTimeout = 30 * time.Second

func addS3Flags(f *pflag.FlagSet, c *s3Flags) {
	f.StringVar(&c.Endpoint, "s3-endpoint", "", "URL of the S3-compatible store of an s3:// --warehouse (empty = AWS)")
	f.StringVar(&c.Region, "s3-region", "", "region of the s3:// warehouse (default: the AWS configuration's, else us-east-1)")
	f.BoolVar(&c.PathStyle, "s3-path-style", false, "address the store as ENDPOINT/BUCKET/KEY (most self-hosted stores need this)")
	f.StringVar(&c.Vend, "vend-credentials", "off", "keys floe hands to clients of an s3:// warehouse: off (clients bring their own), static (floe's own keys) or sts (temporary keys from the store's STS, limited to the one table's prefix; needs --s3-sts-role-arn)")
	f.StringVar(&c.ConditionalPut, "s3-conditional-put", conditionalPutRequired, "whether the s3:// store honours If-None-Match on PUT: required (floe checks at start and refuses a store that ignores it) "+
		"or absent (start anyway: floe's database becomes the only commit authority, new Lance buckets are managed and none may be unmanaged; unmanaged Lance tables already there can lose concurrent commits, see README)")
	f.StringVar(&c.STSRoleARN, "s3-sts-role-arn", "", "with --vend-credentials sts: the role floe assumes (AssumeRole) to vend keys; floe's own identity must be trusted by it")
	f.StringVar(&c.STSEndpoint, "s3-sts-endpoint", "", "with --vend-credentials sts: URL of the store's STS (default: --s3-endpoint, or AWS STS)")
}

// isS3Warehouse reports whether --warehouse names an object store.
func isS3Warehouse(raw string) bool {
	loc, err := warehouse.Parse(raw)
	return err == nil && loc.Scheme() == warehouse.SchemeS3
}

// s3Warehouse is an opened, checked s3:// warehouse and its health watch.
type s3Warehouse struct {
	wh      *warehouse.Warehouse
	backend *warehouse.S3
	health  *warehouse.Health
	vend    warehouse.VendMode
}

// openS3Warehouse parses raw, builds the S3 backend and checks the store
// (list, then a conditional-PUT probe): floe refuses to start on a store
// it cannot use, with a sentence naming the endpoint and the failure.
func openS3Warehouse(ctx context.Context, raw string, c s3Flags, log *slog.Logger) (*s3Warehouse, error) {
	root, err := warehouse.Parse(raw)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--warehouse: %v", err)}
	}
	if root.Bucket() == "" || root.Scheme() != warehouse.SchemeS3 {
		return nil, usageError{fmt.Sprintf("--warehouse %s is not an s3://BUCKET/PREFIX location", raw)}
	}
	vend, err := warehouse.ParseVendMode(c.Vend)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if vend != warehouse.VendSTS && (c.STSRoleARN != "" || c.STSEndpoint != "") {
		return nil, usageError{"--s3-sts-role-arn and --s3-sts-endpoint only serve --vend-credentials sts"}
	}
	if vend == warehouse.VendSTS && c.STSRoleARN == "" {
		return nil, usageError{"--vend-credentials sts needs --s3-sts-role-arn: the role floe assumes to vend keys scoped to one table"}
	}
	absent, err := c.noConditionalPut()
	if err != nil {
		return nil, err
	}
	wh, b, err := warehouse.NewS3(ctx, root, warehouse.S3Config{Endpoint: c.Endpoint, Region: c.Region, PathStyle: c.PathStyle,
		STSRoleARN: c.STSRoleARN, STSEndpoint: c.STSEndpoint, NoConditionalPut: absent})
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	}
	cctx, cancel := context.WithTimeout(ctx, warehouseCheckTimeout)
	defer cancel()
	if err := checkConditionalPut(b.Check(cctx), absent, root, log); err != nil {
		return nil, err
	}
	if vend == warehouse.VendSTS {
		if err := b.CheckSTS(cctx); err != nil {
			return nil, fmt.Errorf("floe cannot vend credentials for the warehouse %s (--vend-credentials sts): %w", root, err)
		}
	}
	if vend == warehouse.VendStatic {
		log.Warn("--vend-credentials static hands floe's own S3 keys to every client that may read a table; prefer off, or scoped keys per client")
	}
	return &s3Warehouse{wh: wh, backend: b, health: warehouse.NewHealth(b), vend: vend}, nil
}

// checkConditionalPut judges the store's start-up check under
// --s3-conditional-put: with required every failure stops floe; with
// absent a store that ignores If-None-Match is accepted and logged, and
// one that honours it is logged too (floe keeps the policy it was given).
func checkConditionalPut(err error, absent bool, root warehouse.Location, log *slog.Logger) error {
	switch {
	case err == nil && absent:
		log.Info("the S3 store honours If-None-Match, but floe runs as --s3-conditional-put absent asks: the catalog's database is the only commit authority and every Lance bucket stays managed", "warehouse", root.String())
		return nil
	case err == nil:
		return nil
	case absent && errors.Is(err, warehouse.ErrNoConditionalPut):
		log.Warn(warehouse.NoConditionalPutRisk, "warehouse", root.String())
		return nil
	case errors.Is(err, warehouse.ErrNoConditionalPut):
		return fmt.Errorf("floe cannot use the warehouse %s: %w; if the store cannot do better, start with --s3-conditional-put absent "+
			"(managed Lance buckets only; see README)", root, err)
	}
	return fmt.Errorf("floe cannot use the warehouse %s: %w", root, err)
}

// snippetStore is what the console's Connect snippets say about an s3://
// warehouse; nil for a local one.
func snippetStore(c *warehouse.ClientAccess) *handlers.SnippetStore {
	if c == nil || c.S3 == nil {
		return nil
	}
	cfg := c.S3.Config()
	return &handlers.SnippetStore{Endpoint: cfg.Endpoint, Region: cfg.Region, PathStyle: cfg.PathStyle, Vended: c.Mode != warehouse.VendOff,
		OwnKeys: c.Mode == warehouse.VendStatic}
}

// s3WorkerEnv hands the bundled Iceberg worker serve's own store settings
// (the worker lists and deletes table files with the AWS chain it inherits);
// nil for a local warehouse.
func s3WorkerEnv(c *warehouse.ClientAccess) []string {
	if c == nil || c.S3 == nil {
		return nil
	}
	cfg := c.S3.Config()
	env := []string{"FLOE_S3_ENDPOINT=" + cfg.Endpoint, "FLOE_S3_REGION=" + cfg.Region}
	if cfg.PathStyle {
		env = append(env, "FLOE_S3_PATH_STYLE=1")
	}
	return env
}
