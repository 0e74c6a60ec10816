package plugin

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
)

type mintedKey struct {
	secret  string
	expires time.Time
}

// keyCache holds the API key minted for each worker; one key per worker and
// worker token is reused until a quarter of its lifetime remains, so
// detections do not mint a key each time.
//
// The key is what a job needs and no more: readonly (the worker only lists
// and describes tables through the catalog; it writes data to storage, not
// to the catalog), short-lived (Config.APIKeyTTL), and named after the
// worker token (catalog.WorkerKeyName), so revoking the token deletes it.
type keyCache struct {
	p  *Plugin
	mu sync.Mutex
	m  map[string]mintedKey
}

func newKeyCache(p *Plugin) *keyCache { return &keyCache{p: p, m: make(map[string]mintedKey)} }

func (k *keyCache) get(ctx context.Context, tokenID, workerID string, role catalog.Role) (mintedKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.p.now()
	ttl := k.p.cfg.APIKeyTTL
	name := catalog.WorkerKeyName(tokenID, workerID)
	if mk, ok := k.m[name]; ok && mk.expires.Sub(now) > ttl/4 {
		return mk, nil
	}
	key, secret, err := k.p.store.CreateAPIKey(ctx, name, role, "", ttl)
	if err != nil {
		return mintedKey{}, err
	}
	exp := key.ExpiresAt
	if exp.IsZero() {
		exp = now.Add(ttl)
	}
	mk := mintedKey{secret: secret, expires: exp}
	k.m[name] = mk
	return mk, nil
}

// forgetToken drops the cached keys minted under tokenID.
func (k *keyCache) forgetToken(tokenID string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	prefix := catalog.WorkerKeyName(tokenID, "")
	for name := range k.m {
		if strings.HasPrefix(name, prefix) {
			delete(k.m, name)
		}
	}
}

// RevokeWorkerToken revokes a worker token with every API key minted under
// it, and closes the streams that authenticated with it at once (a revoked
// token's workers are not left connected until they reconnect).
func (p *Plugin) RevokeWorkerToken(ctx context.Context, tokenID string) error {
	if err := p.store.RevokeWorkerToken(ctx, tokenID); err != nil {
		return err
	}
	p.keys.forgetToken(tokenID)
	if n := p.reg.closeToken(tokenID); n > 0 {
		p.log.Info("closed the streams of a revoked worker token", "token_id", tokenID, "streams", n)
	}
	return nil
}

// clusterContext builds the catalog addresses and credentials for a worker.
func (p *Plugin) clusterContext(ctx context.Context, s *session) (*pluginpb.ClusterContext, error) {
	mk, err := p.keys.get(ctx, s.tokenID, s.workerID, keyRole(s))
	if err != nil {
		return nil, err
	}
	return &pluginpb.ClusterContext{
		LanceRestUrl:        p.cfg.LanceURL,
		IcebergRestUrl:      p.cfg.IcebergURL,
		ApiKey:              mk.secret,
		ApiKeyExpiresUnixMs: mk.expires.UnixMilli(),
	}, nil
}

// objectRef resolves an object id to its catalog entry, when there is one.
func (p *Plugin) objectRef(ctx context.Context, objectID string) *pluginpb.ObjectRef {
	if objectID == "" {
		return nil
	}
	t, err := p.store.GetTableByID(ctx, objectID)
	if err != nil {
		return nil
	}
	return &pluginpb.ObjectRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name, Location: t.Location}
}

// keyRole is the role of the key minted for a worker: read-only, except for
// a worker that executes Iceberg-lane jobs, which commits its snapshots
// through the Iceberg REST and so needs write (still short-lived and
// revoked with its worker token).
func keyRole(s *session) catalog.Role {
	for _, c := range s.caps {
		if c.GetLane() == "iceberg" && c.GetCanExecute() {
			return catalog.RoleReadWrite
		}
	}
	return catalog.RoleReadonly
}
