package icebergrest

import (
	"context"
	"net/http"
	"strings"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

// StorageConfiger is the warehouse's answer to "what does an engine need
// to read and write this table's files": s3.endpoint, s3.path-style-access,
// client.region and, when vended, keys (warehouse.ClientAccess).
//
// access is what vended keys may do (the caller's rights on the table);
// withheld says why no keys came when floe had some it could not cut to
// access.
type StorageConfiger interface {
	IcebergConfig(ctx context.Context, location string, access warehouse.Access, vend bool) (cfg map[string]string, withheld string, err error)
}

// CredentialsProperty is the config entry (and /credentials field) that
// says why an answer carries no storage keys.
const CredentialsProperty = "floe.credentials"

// accessDelegation is the spec's header through which a client asks for
// vended credentials (or remote signing, which floe does not offer).
const accessDelegation = "X-Iceberg-Access-Delegation"

// storageCredential is one entry of LoadTableResult's storage-credentials:
// the config that applies to files under prefix.
type storageCredential struct {
	Prefix string            `json:"prefix"`
	Config map[string]string `json:"config"`
}

// wantsVended reports whether the request asks for vended credentials.
func wantsVended(r *http.Request) bool {
	for _, v := range r.Header.Values(accessDelegation) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), "vended-credentials") {
				return true
			}
		}
	}
	return false
}

// tableConfig is the config (and storage-credentials when keys are
// vended) for table at location; empty for a local warehouse.
func (s *Server) tableConfig(r *http.Request, location string, table identity.Resource) (map[string]string, []storageCredential, *apiError) {
	return s.storageConfig(r, location, table, wantsVended(r))
}

// storageConfig is tableConfig with the choice to vend made by the caller:
// LoadTable vends on the client's header, loadCredentials always. Keys are
// cut to what the caller may do to table.
func (s *Server) storageConfig(r *http.Request, location string, table identity.Resource, vend bool) (map[string]string, []storageCredential, *apiError) {
	if s.storage == nil || location == "" {
		return map[string]string{}, nil, nil
	}
	cfg, withheld, err := s.storage.IcebergConfig(r.Context(), location, vendAccess(r, table), vend)
	if err != nil {
		s.log.Warn("storage config", "location", location, "err", err)
		return nil, nil, errorf(http.StatusServiceUnavailable, typeServiceFailure,
			"floe could not obtain credentials for the table's object store; try again, or ask the operator to check floe's storage configuration")
	}
	if cfg == nil {
		cfg = map[string]string{}
	}
	if withheld != "" {
		cfg[CredentialsProperty] = withheld
	}
	var creds []storageCredential
	if _, ok := cfg["s3.access-key-id"]; ok && vend {
		creds = []storageCredential{{Prefix: location, Config: cfg}}
	}
	return cfg, creds, nil
}
