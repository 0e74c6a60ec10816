package plugin

import (
	"context"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
)

type mintedKey struct {
	secret  string
	expires time.Time
}

// keyCache holds the API key minted for each worker; one key per worker is
// reused until a quarter of its lifetime remains, so detections do not mint
// a key each time.
type keyCache struct {
	p  *Plugin
	mu sync.Mutex
	m  map[string]mintedKey
}

func newKeyCache(p *Plugin) *keyCache { return &keyCache{p: p, m: make(map[string]mintedKey)} }

func (k *keyCache) get(ctx context.Context, workerID string) (mintedKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.p.now()
	ttl := k.p.cfg.APIKeyTTL
	if mk, ok := k.m[workerID]; ok && mk.expires.Sub(now) > ttl/4 {
		return mk, nil
	}
	key, secret, err := k.p.store.CreateAPIKey(ctx, "worker:"+workerID, catalog.RoleReadWrite, "", ttl)
	if err != nil {
		return mintedKey{}, err
	}
	exp := key.ExpiresAt
	if exp.IsZero() {
		exp = now.Add(ttl)
	}
	mk := mintedKey{secret: secret, expires: exp}
	k.m[workerID] = mk
	return mk, nil
}

// clusterContext builds the catalog addresses and credentials for a worker.
func (p *Plugin) clusterContext(ctx context.Context, workerID string) (*pluginpb.ClusterContext, error) {
	mk, err := p.keys.get(ctx, workerID)
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
