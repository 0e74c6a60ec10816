package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/floe/floe/warehouse"
)

// warehouseRecordFile is where serve records, in its data directory, the
// warehouse it runs on, so the CLI commands on the same data directory
// (bucket, namespace, table…) reach the same store: a table dropped with
// `floe bucket delete --cascade` loses its objects on S3 too. Keys are not
// recorded; the CLI takes them from the standard AWS chain, as serve does.
const warehouseRecordFile = "warehouse.json"

// warehouseRecord is that file.
type warehouseRecord struct {
	Warehouse   string `json:"warehouse"`
	S3Endpoint  string `json:"s3_endpoint,omitempty"`
	S3Region    string `json:"s3_region,omitempty"`
	S3PathStyle bool   `json:"s3_path_style,omitempty"`
	// S3NoConditionalPut is --s3-conditional-put absent, so the CLI keeps
	// the same bucket rules (managed only) as serve.
	S3NoConditionalPut bool `json:"s3_no_conditional_put,omitempty"`
	// S3TablesRegion and S3TablesAccount are the ones serve puts in ARNs
	// (--s3tables-region, --s3tables-account), so the CLI prints the ARNs
	// the console and the S3 Tables API print.
	S3TablesRegion  string `json:"s3tables_region,omitempty"`
	S3TablesAccount string `json:"s3tables_account,omitempty"`
}

// recordWarehouse writes the record for paths (and the store settings of
// an s3:// warehouse) atomically: a CLI command never reads half a file.
func recordWarehouse(paths dataPaths, s3 *warehouse.S3, arns s3tablesConfig) error {
	r := warehouseRecord{Warehouse: paths.Warehouse, S3TablesRegion: arns.Region, S3TablesAccount: arns.Account}
	if s3 != nil {
		cfg := s3.Config()
		r.S3Endpoint, r.S3Region, r.S3PathStyle, r.S3NoConditionalPut = cfg.Endpoint, cfg.Region, cfg.PathStyle, cfg.NoConditionalPut
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	dst := filepath.Join(paths.Data, warehouseRecordFile)
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the warehouse in %s: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record the warehouse in %s: %w", dst, err)
	}
	return nil
}

// readWarehouseRecord reads the record of data; ok is false when serve has
// not written one (a data directory only the CLI has used).
func readWarehouseRecord(data string) (r warehouseRecord, ok bool, err error) {
	path := filepath.Join(data, warehouseRecordFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Warehouse == "" {
		return r, false, usageError{fmt.Sprintf("%s is not a warehouse record floe wrote (%v); remove it, or start floe serve once to rewrite it", path, err)}
	}
	return r, true, nil
}

// openRecordedS3 opens the S3 backend of a recorded s3:// warehouse for a
// CLI command. It does not run serve's start check: a command that needs
// the store fails with the store's own sentence.
func openRecordedS3(ctx context.Context, p dataPaths) (*warehouse.S3, error) {
	root, err := warehouse.Parse(p.Warehouse)
	if err != nil {
		return nil, usageError{fmt.Sprintf("the warehouse recorded in %s: %v", filepath.Join(p.Data, warehouseRecordFile), err)}
	}
	absent, err := p.S3.noConditionalPut()
	if err != nil {
		return nil, err
	}
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: p.S3.Endpoint, Region: p.S3.Region, PathStyle: p.S3.PathStyle, NoConditionalPut: absent})
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	}
	return b, nil
}
