package warehouse

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

const (
	// stsSessionDuration is how long vended keys live: an hour is STS's
	// default, what a chained role may get at most, and long enough that a
	// client re-asks the catalog rarely.
	stsSessionDuration = time.Hour
	// stsRefreshFraction: cached keys are handed out until less than this
	// fraction of their lifetime remains, so a client always gets keys
	// that outlive a long scan (45 of 60 minutes re-used, 15 left at worst).
	stsRefreshFraction = 4
	// stsCacheEntries bounds the cache of vended keys (one entry per table
	// prefix asked for within the last hour): a catalog with more tables in
	// use than this re-asks STS for the least recent ones, and memory stays
	// a few hundred KiB.
	stsCacheEntries = 1024
	// stsCallTimeout bounds one AssumeRole: a slow STS makes one
	// DescribeTable or LoadTable answer 503 instead of hanging.
	stsCallTimeout = 10 * time.Second
	// stsSessionName names every session floe opens, for the store's audit
	// log.
	stsSessionName = "floe-vend"
)

// stsVendor hands out temporary keys scoped to one table's prefix: it
// assumes the configured role through the store's STS with a session
// policy that allows object reads (and, for a writer, writes and deletes)
// under the prefix and listing only there. Keys are cached per prefix and
// access until a quarter of their lifetime remains.
type stsVendor struct {
	client  *sts.Client
	role    string
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*stsEntry
}

// stsEntry is one prefix's keys, or the AssumeRole fetching them (done
// open) that later askers wait for instead of asking again.
type stsEntry struct {
	done   chan struct{}
	issued time.Time
	creds  *Credentials
	err    error
}

func newSTSVendor(client *sts.Client, role string) *stsVendor {
	return &stsVendor{client: client, role: role, now: time.Now, entries: map[string]*stsEntry{}}
}

// fresh reports whether a finished entry's keys may still be handed out.
func (e *stsEntry) fresh(now time.Time) bool {
	if e.creds == nil {
		return false
	}
	life := e.creds.Expires.Sub(e.issued)
	return now.Before(e.creds.Expires.Add(-life / stsRefreshFraction))
}

func (e *stsEntry) finished() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// credentials returns keys for the table at loc (bucket and key prefix)
// that may do what access says.
func (v *stsVendor) credentials(ctx context.Context, loc Location, access Access) (*Credentials, error) {
	prefix := string(access) + ":" + loc.Bucket() + "/" + loc.Path()
	v.mu.Lock()
	e := v.entries[prefix]
	if e != nil && (!e.finished() || e.fresh(v.now())) {
		v.mu.Unlock()
		select {
		case <-e.done:
			return e.creds, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e = &stsEntry{done: make(chan struct{}), issued: v.now()}
	v.makeRoomLocked()
	v.entries[prefix] = e
	v.mu.Unlock()

	// The fetch outlives a cancelled asker: others may be waiting on it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stsCallTimeout)
	e.creds, e.err = v.assume(fctx, loc, access)
	cancel()
	close(e.done)
	if e.err != nil {
		v.mu.Lock()
		if v.entries[prefix] == e {
			delete(v.entries, prefix) // the next asker tries again
		}
		v.mu.Unlock()
	}
	return e.creds, e.err
}

// makeRoomLocked keeps the cache under stsCacheEntries: stale entries go
// first, then the finished ones that expire soonest.
func (v *stsVendor) makeRoomLocked() {
	if len(v.entries) < stsCacheEntries {
		return
	}
	now := v.now()
	for k, e := range v.entries {
		if e.finished() && !e.fresh(now) {
			delete(v.entries, k)
		}
	}
	for len(v.entries) >= stsCacheEntries {
		var victim string
		var soonest time.Time
		for k, e := range v.entries {
			if e.finished() && e.creds != nil && (victim == "" || e.creds.Expires.Before(soonest)) {
				victim, soonest = k, e.creds.Expires
			}
		}
		if victim == "" {
			return // every entry is a fetch in flight: let the map grow briefly
		}
		delete(v.entries, victim)
	}
}

// assume asks STS for keys limited to loc's prefix and to access.
func (v *stsVendor) assume(ctx context.Context, loc Location, access Access) (*Credentials, error) {
	policy, err := sessionPolicy(loc, access)
	if err != nil {
		return nil, err
	}
	out, err := v.client.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn:         aws.String(v.role),
		RoleSessionName: aws.String(stsSessionName),
		Policy:          aws.String(policy),
		DurationSeconds: aws.Int32(int32(stsSessionDuration / time.Second)),
	})
	if err != nil {
		return nil, errorf(ErrPermission, "the store's STS refused AssumeRole of %s: %v", v.role, err)
	}
	c := out.Credentials
	if c == nil || c.AccessKeyId == nil || c.SecretAccessKey == nil || c.SessionToken == nil || c.Expiration == nil {
		return nil, errorf(ErrPermission, "the store's STS answered AssumeRole of %s without complete credentials", v.role)
	}
	return &Credentials{AccessKeyID: *c.AccessKeyId, SecretAccessKey: *c.SecretAccessKey, SessionToken: *c.SessionToken, Expires: *c.Expiration}, nil
}

// policyStatement and policyDocument are the IAM policy grammar a session
// policy is written in.
type policyStatement struct {
	Effect    string                         `json:"Effect"`
	Action    []string                       `json:"Action"`
	Resource  []string                       `json:"Resource"`
	Condition map[string]map[string][]string `json:"Condition,omitempty"`
}

type policyDocument struct {
	Version   string            `json:"Version"`
	Statement []policyStatement `json:"Statement"`
}

// Object actions of a session policy: a reader's, and what a writer adds.
var (
	readActions  = []string{"s3:GetObject"}
	writeActions = []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject",
		"s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"}
)

// sessionPolicy is the session policy for the table at loc: objects under
// BUCKET/KEY/ may be read — and, with AccessWrite, written and deleted
// (multipart uploads included) —, and the bucket may be listed only below
// KEY/. The bare KEY is not a listable prefix: a listing of "wh/b/ns/ia"
// also returns the keys of a sibling table "wh/b/ns/iab", so only "KEY/"
// and what is below it are. A key containing a character IAM reads as a
// wildcard or a policy variable (*, ?, $) is refused rather than vended
// for: the policy would reach other tables' objects (CheckTablePlacement
// keeps such locations out of the catalog).
func sessionPolicy(loc Location, access Access) (string, error) {
	bucket, k := loc.Bucket(), loc.Path()
	if bucket == "" || k == "" {
		return "", errorf(ErrBadLocation, "location %s names no table prefix to scope keys to", loc)
	}
	if err := checkPolicyLiteral(loc); err != nil {
		return "", err
	}
	actions := readActions
	switch access {
	case AccessRead:
	case AccessWrite:
		actions = writeActions
	default:
		return "", errorf(ErrPermission, "vended keys need an access (read or write), not %q", access)
	}
	doc := policyDocument{Version: "2012-10-17", Statement: []policyStatement{
		{
			Effect:   "Allow",
			Action:   actions,
			Resource: []string{"arn:aws:s3:::" + bucket + "/" + k + "/*"},
		},
		{
			Effect:    "Allow",
			Action:    []string{"s3:ListBucket"},
			Resource:  []string{"arn:aws:s3:::" + bucket},
			Condition: map[string]map[string][]string{"StringLike": {"s3:prefix": {k + "/", k + "/*"}}},
		},
	}}
	b, err := json.Marshal(doc)
	return string(b), err
}

// stsCheckName is the prefix below the warehouse root the start-up
// AssumeRole is scoped to; nothing is written there.
const stsCheckName = ".floe-sts-check"

// CheckSTS assumes the vending role once, scoped to a prefix under the
// warehouse root, so
// floe refuses to start with a sentence when --vend-credentials sts could
// not hand out a single key.
func (b *S3) CheckSTS(ctx context.Context) error {
	if b.sts == nil {
		return errorf(ErrBadLocation, "--vend-credentials sts needs --s3-sts-role-arn, the role floe assumes to vend keys")
	}
	probe, err := b.root.Join(stsCheckName)
	if err != nil {
		return err
	}
	_, err = b.sts.assume(ctx, probe, AccessRead)
	return err
}
