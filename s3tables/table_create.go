package s3tables

import (
	"encoding/json"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// createTable answers CreateTable.
func (s *Server) createTable(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	var in struct {
		Name       string            `json:"name"`
		Format     string            `json:"format"`
		Metadata   json.RawMessage   `json:"metadata"`
		Tags       map[string]string `json:"tags"`
		Encryption json.RawMessage   `json:"encryptionConfiguration"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	ref, err := tableRef(bucket, req.param("namespace"), in.Name)
	if err != nil {
		return nil, err
	}
	if err := s.allow(req, tableResource(ref), identity.Manage); err != nil {
		return nil, err
	}
	var f catalog.Format
	switch in.Format {
	case "ICEBERG":
		f = catalog.FormatIceberg
	case "LANCE":
		f = catalog.FormatLance
	default:
		return nil, badRequest("format", "format must be ICEBERG, or LANCE (floe's extension: the table is declared as a Lance dataset root)")
	}
	if err := s.checkServed(f, "a table"); err != nil {
		return nil, err
	}
	enc, err := readEncryption("encryptionConfiguration", in.Encryption)
	if err != nil {
		return nil, err
	}
	if err := s.checkEncryption(req, "encryptionConfiguration", enc); err != nil {
		return nil, err
	}
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if f == catalog.FormatLance {
			return nil, badRequest("metadata", "metadata describes an Iceberg table; a LANCE table takes none (its schema comes with its first write)")
		}
		return s.createIcebergWithSchema(req, ref, in.Metadata, in.Tags)
	}
	t, created, err := s.cfg.Store.CreateTable(req.ctx, catalog.CreateTableInput{TableRef: ref, Format: f, Tags: in.Tags})
	if err != nil {
		return nil, err
	}
	if !created {
		return nil, conflict("name", "table "+quote(ref.String())+" already exists")
	}
	return struct {
		TableARN     string `json:"tableARN"`
		VersionToken string `json:"versionToken"`
	}{s.tableARN(t), t.VersionToken}, nil
}

// createIcebergWithSchema creates an Iceberg table with its first metadata
// file written from the given schema, through the Iceberg library (the same
// code the Iceberg REST catalog creates tables with), tagged with tags.
func (s *Server) createIcebergWithSchema(req *request, ref catalog.TableRef, raw json.RawMessage, tags map[string]string) (any, error) {
	in, err := icebergCreateInput(ref.Name, raw)
	if err != nil {
		return nil, err
	}
	in.Tags = tags
	b, err := s.cfg.Store.GetBucket(req.ctx, ref.Bucket)
	if err != nil {
		return nil, err
	}
	if _, err := s.iceberg.CreateTable(req.ctx, b, ref.Namespace, in); err != nil {
		return nil, err
	}
	t, err := s.cfg.Store.GetTable(req.ctx, ref)
	if err != nil {
		return nil, err
	}
	return struct {
		TableARN     string `json:"tableARN"`
		VersionToken string `json:"versionToken"`
	}{s.tableARN(t), t.VersionToken}, nil
}
