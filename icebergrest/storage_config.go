package icebergrest

import (
	"context"
	"net/http"
	"strings"
)

// StorageConfiger is the warehouse's answer to "what does an engine need
// to read and write this table's files": s3.endpoint, s3.path-style-access,
// client.region and, when vended, keys (warehouse.ClientAccess).
type StorageConfiger interface {
	IcebergConfig(ctx context.Context, location string, vend bool) (map[string]string, error)
}

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
// vended) for a table at location; empty for a local warehouse.
func (s *Server) tableConfig(r *http.Request, location string) (map[string]string, []storageCredential, *apiError) {
	return s.storageConfig(r, location, wantsVended(r))
}

// storageConfig is tableConfig with the choice to vend made by the caller:
// LoadTable vends on the client's header, loadCredentials always.
func (s *Server) storageConfig(r *http.Request, location string, vend bool) (map[string]string, []storageCredential, *apiError) {
	if s.storage == nil || location == "" {
		return map[string]string{}, nil, nil
	}
	cfg, err := s.storage.IcebergConfig(r.Context(), location, vend)
	if err != nil {
		s.log.Warn("storage config", "location", location, "err", err)
		return nil, nil, errorf(http.StatusServiceUnavailable, typeServiceFailure,
			"floe could not obtain credentials for the table's object store; try again, or ask the operator to check floe's storage configuration")
	}
	if cfg == nil {
		return map[string]string{}, nil, nil
	}
	var creds []storageCredential
	if _, ok := cfg["s3.access-key-id"]; ok && vend {
		creds = []storageCredential{{Prefix: location, Config: cfg}}
	}
	return cfg, creds, nil
}
