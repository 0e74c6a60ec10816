package apikey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// TokenPrefix starts every access token Tokens issues, so the checker knows
// a token from an API key without asking the catalog.
const TokenPrefix = "floe_oat_"

// TokenTTL is how long an access token lives: an OAuth2 client asks for a
// new one when it expires, and a leaked token is useless within the hour.
const TokenTTL = time.Hour

// maxTokens bounds the live tokens held in memory. A client asks about once
// per TokenTTL, so this is thousands of clients; past it the token closest
// to expiry is dropped and its client simply asks again.
const maxTokens = 10_000

// ErrInvalidClient: the client id and secret do not name a live API key.
var ErrInvalidClient = errors.New("invalid client")

// TokenKeys is what issuing and checking tokens needs of the catalog: the
// key checks (the key itself, or its access key pair), the revocation
// generation, and the list of live keys (asked only after a revocation, to
// see whether a token's key is still there).
type TokenKeys interface {
	Keys
	LookupAccessKey(ctx context.Context, accessKeyID string) (catalog.APIKey, error)
	ListAPIKeys(ctx context.Context) ([]catalog.APIKey, error)
}

// Tokens issues short-lived access tokens for API keys (the Iceberg REST
// spec's OAuth2 client-credentials exchange) and checks them. A token
// carries its key's role and bucket scope; it dies when it expires, when its
// key expires or is revoked, and when the process restarts (clients then
// ask again, as OAuth2 clients do on a 401). Only token hashes are kept.
type Tokens struct {
	keys TokenKeys
	ttl  time.Duration
	now  func() time.Time

	mu sync.Mutex
	m  map[[sha256.Size]byte]*issued
}

type issued struct {
	key     catalog.APIKey
	expires time.Time
	gen     uint64 // the key generation at which the key was last seen live
}

// NewTokens builds Tokens. now nil means time.Now.
func NewTokens(keys TokenKeys, now func() time.Time) *Tokens {
	if now == nil {
		now = time.Now
	}
	return &Tokens{keys: keys, ttl: TokenTTL, now: now, m: map[[sha256.Size]byte]*issued{}}
}

// Issue exchanges client credentials for an access token valid for the
// returned duration (TokenTTL, or less when the key expires sooner). The
// credentials are an API key's access key pair (access key id, secret
// access key — what S3 Tables signs with) or its id and the key itself. A
// wrong pair is ErrInvalidClient; other errors are server faults.
func (t *Tokens) Issue(ctx context.Context, clientID, clientSecret string) (string, time.Duration, error) {
	_, tok, ttl, err := t.IssueKey(ctx, clientID, clientSecret)
	return tok, ttl, err
}

// IssueKey is Issue that also returns the key the credentials named (its
// secret access key cleared), so the exchange can say who asked.
func (t *Tokens) IssueKey(ctx context.Context, clientID, clientSecret string) (catalog.APIKey, string, time.Duration, error) {
	key, err := t.client(ctx, clientID, clientSecret)
	if err != nil {
		return catalog.APIKey{}, "", 0, err
	}
	now := t.now()
	expires := now.Add(t.ttl)
	if !key.ExpiresAt.IsZero() && key.ExpiresAt.Before(expires) {
		expires = key.ExpiresAt
	}
	tok := TokenPrefix + rand.Text()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= maxTokens {
		t.sweep(now)
	}
	t.m[sha256.Sum256([]byte(tok))] = &issued{key: key, expires: expires, gen: t.keys.KeyGeneration()}
	return key, tok, expires.Sub(now), nil
}

// client finds the key the credentials name.
func (t *Tokens) client(ctx context.Context, id, secret string) (catalog.APIKey, error) {
	unknown := func(err error) bool {
		return errors.Is(err, fault.NotFound) || errors.Is(err, fault.Invalid)
	}
	key, err := t.keys.LookupAccessKey(ctx, id)
	switch {
	case err == nil:
		ok := subtle.ConstantTimeCompare([]byte(key.SecretAccessKey), []byte(secret)) == 1
		key.SecretAccessKey = "" // never kept with a token
		if !ok {
			return catalog.APIKey{}, ErrInvalidClient
		}
		return key, nil
	case !unknown(err):
		return catalog.APIKey{}, err
	}
	key, err = t.keys.VerifyAPIKey(ctx, secret)
	switch {
	case unknown(err):
		return catalog.APIKey{}, ErrInvalidClient
	case err != nil:
		return catalog.APIKey{}, err
	case subtle.ConstantTimeCompare([]byte(key.ID), []byte(id)) != 1:
		return catalog.APIKey{}, ErrInvalidClient
	}
	return key, nil
}

// sweep drops expired tokens and, if that frees nothing, the one closest to
// expiry. Called with mu held.
func (t *Tokens) sweep(now time.Time) {
	var first [sha256.Size]byte
	var firstExp time.Time
	for h, e := range t.m {
		if !now.Before(e.expires) {
			delete(t.m, h)
			continue
		}
		if firstExp.IsZero() || e.expires.Before(firstExp) {
			first, firstExp = h, e.expires
		}
	}
	if len(t.m) >= maxTokens {
		delete(t.m, first)
	}
}

// errUnknownToken: the token is unknown, expired, or its key was revoked.
var errUnknownToken = errors.New("unknown token")

// verify returns the key a live token stands for.
func (t *Tokens) verify(ctx context.Context, tok string) (catalog.APIKey, error) {
	h := sha256.Sum256([]byte(tok))
	now := t.now()
	gen := t.keys.KeyGeneration()
	t.mu.Lock()
	e, ok := t.m[h]
	if ok && !now.Before(e.expires) {
		delete(t.m, h)
		ok = false
	}
	var key catalog.APIKey
	var seen uint64
	if ok {
		key, seen = e.key, e.gen
	}
	t.mu.Unlock()
	if !ok {
		return catalog.APIKey{}, errUnknownToken
	}
	if seen == gen {
		return key, nil
	}
	// A key was revoked since this token's key was last seen: is it still
	// there? One catalog query per token after each revocation.
	live, err := t.keys.ListAPIKeys(ctx)
	if err != nil {
		return catalog.APIKey{}, err
	}
	for _, k := range live {
		if k.ID == key.ID {
			t.mu.Lock()
			if e, ok := t.m[h]; ok {
				e.gen = gen
			}
			t.mu.Unlock()
			return key, nil
		}
	}
	t.mu.Lock()
	delete(t.m, h)
	t.mu.Unlock()
	return catalog.APIKey{}, errUnknownToken
}

// isToken says whether a bearer is one of ours rather than an API key.
func isToken(s string) bool { return strings.HasPrefix(s, TokenPrefix) }

// IsJWT says whether a bearer is shaped as a JWT (three base64url parts
// joined by dots) rather than one of floe's own secrets: every floe key and
// access token starts with "floe_" and has no dot. The shape alone decides
// which check a bearer gets, so an API key is never sent to the identity
// provider's check, nor a JWT to the key store.
func IsJWT(s string) bool {
	if strings.HasPrefix(s, "floe_") || strings.Count(s, ".") != 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
