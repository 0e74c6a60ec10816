package icebergrest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// fakeConfig stands in for warehouse.ClientAccess: keys only when vended.
type fakeConfig struct{ fail atomic.Bool }

func (f *fakeConfig) IcebergConfig(_ context.Context, location string, access warehouse.Access, vend bool) (map[string]string, string, error) {
	if f.fail.Load() {
		return nil, "", errors.New("the S3 store at http://127.0.0.1:1 cannot be reached")
	}
	c := map[string]string{"s3.endpoint": "http://127.0.0.1:8333", "s3.path-style-access": "true", "client.region": "us-east-1"}
	if vend {
		c["s3.access-key-id"], c["s3.secret-access-key"] = "AK", "SK"
	}
	return c, "", nil
}

// CreateTable and LoadTable carry the warehouse's config; keys and
// storage-credentials only under X-Iceberg-Access-Delegation.
func TestLoadTableConfigFromWarehouse(t *testing.T) {
	e := newEnv(t, true)
	fc := &fakeConfig{}
	e.srv.storage = fc
	e.bucket(t, "lake", catalog.FormatIceberg)
	if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", `{"namespace":["ns"]}`); code != 200 {
		t.Fatalf("create namespace %d %v", code, body)
	}
	send := func(method, path, body, delegation string) (int, map[string]any, string) {
		req, _ := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
		if delegation != "" {
			req.Header.Set(accessDelegation, delegation)
		}
		resp, err := e.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		json.Unmarshal(raw, &out)
		return resp.StatusCode, out, string(raw)
	}
	create := `{"name":"t","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}}`
	cases := []struct {
		name, method, path, body, delegation string
		keys                                 bool
	}{
		{"create, no delegation", "POST", "/v1/lake/namespaces/ns/tables", create, "", false},
		{"load, vended", "GET", "/v1/lake/namespaces/ns/tables/t", "", "vended-credentials", true},
		{"load, remote signing only", "GET", "/v1/lake/namespaces/ns/tables/t", "", "remote-signing", false},
		{"load, both listed", "GET", "/v1/lake/namespaces/ns/tables/t", "", "remote-signing, vended-credentials", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, raw := send(c.method, c.path, c.body, c.delegation)
			if code != 200 {
				t.Fatalf("%d %s", code, raw)
			}
			cfg, _ := out["config"].(map[string]any)
			if cfg["s3.endpoint"] != "http://127.0.0.1:8333" || cfg["s3.path-style-access"] != "true" {
				t.Fatalf("config = %v", cfg)
			}
			_, hasKey := cfg["s3.access-key-id"]
			_, hasCreds := out["storage-credentials"]
			if hasKey != c.keys || hasCreds != c.keys {
				t.Fatalf("keys in config %v, storage-credentials %v; want %v: %s", hasKey, hasCreds, c.keys, raw)
			}
		})
	}
	fc.fail.Store(true)
	code, out, raw := send("GET", "/v1/lake/namespaces/ns/tables/t", "", "vended-credentials")
	if code != http.StatusServiceUnavailable || errType(out) != typeServiceFailure || strings.Contains(raw, "127.0.0.1:1") {
		t.Fatalf("failing storage: %d %s; want 503 ServiceFailureException without internal detail", code, raw)
	}
}
