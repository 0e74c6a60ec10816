package oidc

import (
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
)

// signingAlgs are the asymmetric algorithms a token may be signed with:
// never "none" and never an HMAC, whose key a client would share.
var signingAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

func algNames() []string {
	out := make([]string, len(signingAlgs))
	for i, a := range signingAlgs {
		out[i] = string(a)
	}
	return out
}

// refetchEvery bounds how often a token naming a key id the set does not
// hold makes floe fetch the provider's keys again: a provider that rotated
// its keys is seen within this, and made-up key ids cannot turn every
// request into a fetch from the provider.
const refetchEvery = 30 * time.Second

// keySet is the provider's published signing keys (its jwks_uri) for
// go-oidc's verifier (a gooidc.KeySet): fetched on first use and again when
// a token names a key id it does not hold, at most once per refetchEvery.
// The signature itself is checked by go-oidc's StaticKeySet over the keys
// of the token's key id. It differs from go-oidc's RemoteKeySet only in
// that bound (RemoteKeySet fetches for every unknown key id).
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	fetching sync.Mutex // one fetch at a time; verifications of known keys never wait on it

	mu        sync.Mutex
	keys      map[string][]crypto.PublicKey // by key id ("" for keys without one)
	fetchedAt time.Time
	fetchErr  error
}

func newKeySet(url string, client *http.Client, now func() time.Time) *keySet {
	return &keySet{url: url, client: client, now: now}
}

// errUnknownKey: the token names a key id the provider does not publish.
var errUnknownKey = fmt.Errorf("oidc: the token is signed with a key the identity provider does not publish")

// VerifySignature checks jwt's signature against the provider's keys of its
// key id and returns its payload.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSigned(jwt, signingAlgs)
	if err != nil {
		return nil, fmt.Errorf("oidc: malformed jwt: %w", err)
	}
	kid := ""
	if len(jws.Signatures) > 0 {
		kid = jws.Signatures[0].Header.KeyID
	}
	pubs, err := k.keysFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	return (&gooidc.StaticKeySet{PublicKeys: pubs}).VerifySignature(ctx, jwt)
}

// keysFor returns the keys of kid, fetching the set when it has none for
// kid and the last fetch is older than refetchEvery.
func (k *keySet) keysFor(ctx context.Context, kid string) ([]crypto.PublicKey, error) {
	if pubs, ok, err := k.cached(kid); ok || err != nil {
		return pubs, err
	}
	k.fetching.Lock()
	defer k.fetching.Unlock()
	if pubs, ok, err := k.cached(kid); ok || err != nil { // another request fetched meanwhile
		return pubs, err
	}
	keys, err := k.fetch(ctx)
	k.mu.Lock()
	k.fetchedAt = k.now()
	k.fetchErr = err
	if err == nil {
		k.keys = keys
	}
	k.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if pubs := keys[kid]; len(pubs) > 0 || kid == "" {
		return allOrKid(keys, kid), nil
	}
	return nil, errUnknownKey
}

// cached answers from the set in memory: ok when it holds kid's keys, or
// when a fetch is not due (then err says why there are none).
func (k *keySet) cached(kid string) (pubs []crypto.PublicKey, ok bool, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys != nil {
		if pubs := allOrKid(k.keys, kid); len(pubs) > 0 {
			return pubs, true, nil
		}
	}
	if !k.fetchedAt.IsZero() && k.now().Sub(k.fetchedAt) < refetchEvery {
		if k.fetchErr != nil {
			return nil, false, k.fetchErr
		}
		return nil, false, errUnknownKey
	}
	return nil, false, nil
}

// allOrKid is kid's keys, or every key for a token without a key id.
func allOrKid(keys map[string][]crypto.PublicKey, kid string) []crypto.PublicKey {
	if kid != "" {
		return keys[kid]
	}
	var all []crypto.PublicKey
	for _, pubs := range keys {
		all = append(all, pubs...)
	}
	return all
}

// fetch reads the provider's key set; only signing keys of the accepted
// algorithms are kept.
func (k *keySet) fetch(ctx context.Context) (map[string][]crypto.PublicKey, error) {
	ctx, cancel := context.WithTimeout(ctx, idpTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, unavailable("the request for its signing keys", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, unavailable("the request for its signing keys", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable("the request for its signing keys", fmt.Errorf("%s answered %s", k.url, resp.Status))
	}
	keys, err := parseKeySet(body)
	if err != nil {
		return nil, unavailable("the request for its signing keys", fmt.Errorf("%s: %w", k.url, err))
	}
	return keys, nil
}

// parseKeySet reads a JWKS document (at most maxIdPResponse, the transport
// caps it): its public signing keys by key id. Keys one by one: a key of a
// type go-jose does not know (or a symmetric or private one) is skipped
// rather than failing the whole set.
func parseKeySet(body []byte) (map[string][]crypto.PublicKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, err
	}
	keys := map[string][]crypto.PublicKey{}
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if json.Unmarshal(raw, &key) != nil {
			continue
		}
		if key.Use != "" && key.Use != "sig" || !key.IsPublic() || !key.Valid() {
			continue
		}
		keys[key.KeyID] = append(keys[key.KeyID], key.Key)
	}
	return keys, nil
}
