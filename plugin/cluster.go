package plugin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/plugin/pluginpb"
)

type mintedKey struct {
	secret  string
	expires time.Time
}

// keyScope is what a minted key may do: the one grant it holds, a
// privilege on a bucket ("" = everything, read only: detection walks every
// bucket).
type keyScope struct {
	privilege string // read or write
	bucket    string
}

// detectScope is the scope of the key a Detect carries: detection lists
// every bucket's tables and only reads.
var detectScope = keyScope{privilege: "read"}

// executeScope is the scope of the key an Execute carries: write on the
// job's bucket, for every lane — the Iceberg worker commits snapshots
// through the Iceberg REST, and a Lance job writes its data to storage
// with the keys DescribeTable vends for a writer (and commits through
// floe on a managed bucket). Write covers neither creating, dropping nor
// granting. A job whose object resolves to no table gets the read-only
// detection scope: it cannot name a bucket to write to.
func executeScope(lane string, ref *pluginpb.ObjectRef) keyScope {
	if ref.GetBucket() == "" {
		return detectScope
	}
	return keyScope{privilege: "write", bucket: ref.GetBucket()}
}

// keyCache holds the API keys minted for each worker: one per worker, worker
// token and scope, reused until a quarter of its lifetime remains, so
// detections and dispatch passes do not mint a key each time.
//
// A key is what its message needs and no more (keyScope), short-lived
// (Config.APIKeyTTL), and named after the worker token
// (catalog.WorkerKeyName), so revoking the token deletes it.
type keyCache struct {
	p  *Plugin
	mu sync.Mutex
	m  map[string]mintedKey
}

func newKeyCache(p *Plugin) *keyCache { return &keyCache{p: p, m: make(map[string]mintedKey)} }

// maxCachedKeys bounds the minted keys remembered at once (workers × the
// buckets their jobs touched within a key's lifetime); past it the cache
// starts over, which costs only fresh mints.
const maxCachedKeys = 4096

func (k *keyCache) get(ctx context.Context, tokenID, workerID string, scope keyScope) (mintedKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.p.now()
	ttl := k.p.cfg.APIKeyTTL
	name := catalog.WorkerKeyName(tokenID, workerID)
	slot := name + "\x00" + scope.privilege + "\x00" + scope.bucket
	if mk, ok := k.m[slot]; ok && mk.expires.Sub(now) > ttl/4 {
		return mk, nil
	}
	if len(k.m) >= maxCachedKeys {
		clear(k.m)
	}
	// Minted only while the token exists: a token revoked on another
	// replica a moment ago gets no fresh key here (ErrNotFound).
	key, secret, err := k.p.store.CreateScopedWorkerKey(ctx, tokenID, workerID,
		catalog.Grant{Bucket: scope.bucket, Privilege: scope.privilege}, ttl)
	if err != nil {
		return mintedKey{}, err
	}
	exp := key.ExpiresAt
	if exp.IsZero() {
		exp = now.Add(ttl)
	}
	mk := mintedKey{secret: secret, expires: exp}
	k.m[slot] = mk
	return mk, nil
}

// keepTokens drops the cached keys minted under any worker token not in
// live (revoked ones).
func (k *keyCache) keepTokens(live map[string]bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for slot := range k.m {
		rest, _ := strings.CutPrefix(slot, "worker:")
		tokenID, _, _ := strings.Cut(rest, ":")
		if !live[tokenID] {
			delete(k.m, slot)
		}
	}
}

// RevokeWorkerToken revokes a worker token with every API key minted under
// it, and closes the streams that authenticated with it at once (a revoked
// token's workers are not left connected until they reconnect): the
// catalog calls workerTokenRevoked here, and on every other replica
// through the bus, so a worker connected to another one is closed there.
func (p *Plugin) RevokeWorkerToken(ctx context.Context, tokenID string) error {
	return p.store.RevokeWorkerToken(ctx, tokenID)
}

// workerTokenRevoked ends what was derived from a revoked worker token in
// this process: its cached minted keys and its streams. It runs on the
// catalog's revocation callback (this replica's revokes, and other
// replicas' through the bus), so it must not block; an empty id (the bus
// may have missed revocations) re-checks every stream's token instead.
func (p *Plugin) workerTokenRevoked(tokenID string) {
	if tokenID != "" {
		if n := p.reg.closeToken(tokenID); n > 0 {
			p.log.Info("closed the streams of a revoked worker token", "token_id", tokenID, "streams", n)
		}
	}
	// The key cache's lock may be held across a mint's database write, so
	// forgetting its keys is left to recheckTokenLoop (a closed stream
	// asks for no key meanwhile).
	select {
	case p.recheckTokens <- struct{}{}:
	default: // a check is already due
	}
}

// tokenRecheckEvery bounds how long a stream outlives its worker token when
// every notification of the revoke was lost; normally the revoke's
// notification closes it within milliseconds.
const tokenRecheckEvery = time.Minute

// recheckTokenLoop closes the streams whose worker token no longer exists:
// after the bus reconnected (revocations may have gone unheard) and every
// tokenRecheckEvery, until ctx ends.
func (p *Plugin) recheckTokenLoop(ctx context.Context) {
	t := time.NewTicker(tokenRecheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.recheckTokens:
		}
		live, err := p.store.ListWorkerTokens(ctx)
		if err != nil {
			if ctx.Err() == nil {
				p.log.Warn("worker tokens not re-checked", "err", err)
			}
			continue
		}
		ids := make(map[string]bool, len(live))
		for _, w := range live {
			ids[w.ID] = true
		}
		for _, id := range p.reg.tokenIDs() {
			if !ids[id] {
				p.reg.closeToken(id)
				p.log.Info("closed the streams of a worker token that no longer exists", "token_id", id)
			}
		}
		p.keys.keepTokens(ids)
	}
}

// clusterContext builds the catalog addresses and credentials for a worker,
// with a key limited to scope.
func (p *Plugin) clusterContext(ctx context.Context, s *session, scope keyScope) (*pluginpb.ClusterContext, error) {
	mk, err := p.keys.get(ctx, s.tokenID, s.workerID, scope)
	if errors.Is(err, fault.NotFound) {
		// The token was revoked (perhaps on another replica, its note not
		// here yet): the stream goes with it.
		p.reg.closeToken(s.tokenID)
	}
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
