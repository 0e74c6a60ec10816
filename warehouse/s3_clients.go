package warehouse

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// VendMode says which credentials floe hands to the engines that open a
// table on an S3 warehouse.
type VendMode string

const (
	// VendOff hands out none: clients bring their own keys.
	VendOff VendMode = "off"
	// VendStatic hands out floe's own keys; every client can then do
	// whatever floe can, so floe warns at start.
	VendStatic VendMode = "static"
	// VendSTS hands out temporary keys from the store's STS, limited by a
	// session policy to the one table's prefix.
	VendSTS VendMode = "sts"
)

// ParseVendMode reads --vend-credentials.
func ParseVendMode(s string) (VendMode, error) {
	switch m := VendMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", VendOff:
		return VendOff, nil
	case VendStatic, VendSTS:
		return m, nil
	default:
		return "", errorf(ErrBadLocation, "--vend-credentials %q is not a mode; use off, static or sts", s)
	}
}

// Access is what vended keys may do under a table's prefix: what the
// caller may do to the table, as the authorizer decided.
type Access string

const (
	// AccessRead: GetObject and a prefix-limited ListBucket only.
	AccessRead Access = "read"
	// AccessWrite: reads, and PutObject, DeleteObject and multipart uploads.
	AccessWrite Access = "write"
)

// Credentials are keys an engine uses to reach the store directly.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	// Expires is when they stop working; zero for long-lived keys.
	Expires time.Time
}

// Vend returns the credentials for a client of the table at loc under
// mode, or nil when none are handed out. Under sts they may do what access
// says under the table's prefix; static keys are floe's own, whatever
// access is (ClientAccess withholds them from readers).
func (b *S3) Vend(ctx context.Context, mode VendMode, loc Location, access Access) (*Credentials, error) {
	if mode != VendStatic && mode != VendSTS {
		return nil, nil
	}
	if !loc.Within(b.root) {
		return nil, errorf(ErrOutside, "location %s is outside the warehouse %s", loc, b.root)
	}
	if mode == VendSTS {
		if b.sts == nil {
			return nil, errorf(ErrPermission, "floe has no STS role to assume (--s3-sts-role-arn) to vend scoped keys")
		}
		return b.sts.credentials(ctx, loc, access)
	}
	if b.creds == nil {
		return nil, errorf(ErrPermission, "floe has no credentials for the S3 store at %s to hand out", b.endpoint)
	}
	c, err := b.creds.Retrieve(ctx)
	if err != nil {
		return nil, errorf(ErrPermission, "floe has no credentials for the S3 store at %s to hand out: %v", b.endpoint, err)
	}
	out := &Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}
	if c.CanExpire {
		out.Expires = c.Expires
	}
	return out, nil
}

// allowHTTP reports whether the endpoint is plain http, which Lance's
// object store refuses unless told.
func (b *S3) allowHTTP() bool {
	u, err := url.Parse(b.cfg.Endpoint)
	return err == nil && u.Scheme == "http"
}

// LanceStorageOptions are the storage_options of a Lance DescribeTable
// answer: enough for LanceDB to open the table on this store unaided.
func (b *S3) LanceStorageOptions(c *Credentials) map[string]string {
	o := map[string]string{"aws_region": b.cfg.Region}
	if b.cfg.Endpoint != "" {
		o["aws_endpoint"] = b.cfg.Endpoint
	}
	if b.allowHTTP() {
		o["allow_http"] = "true"
	}
	o["aws_virtual_hosted_style_request"] = strconv.FormatBool(!b.cfg.PathStyle)
	if c != nil {
		o["aws_access_key_id"] = c.AccessKeyID
		o["aws_secret_access_key"] = c.SecretAccessKey
		if c.SessionToken != "" {
			o["aws_session_token"] = c.SessionToken
		}
		if !c.Expires.IsZero() {
			o["expires_at_millis"] = strconv.FormatInt(c.Expires.UnixMilli(), 10)
		}
	}
	return o
}

// IcebergConfig is the config of an Iceberg LoadTable/CreateTable answer
// (the FileIO properties of the Iceberg REST spec).
func (b *S3) IcebergConfig(c *Credentials) map[string]string {
	o := map[string]string{
		"client.region":        b.cfg.Region,
		"s3.path-style-access": strconv.FormatBool(b.cfg.PathStyle),
	}
	if b.cfg.Endpoint != "" {
		o["s3.endpoint"] = b.cfg.Endpoint
	}
	if c != nil {
		o["s3.access-key-id"] = c.AccessKeyID
		o["s3.secret-access-key"] = c.SecretAccessKey
		if c.SessionToken != "" {
			o["s3.session-token"] = c.SessionToken
		}
		if !c.Expires.IsZero() {
			o["s3.session-token-expires-at-ms"] = strconv.FormatInt(c.Expires.UnixMilli(), 10)
		}
	}
	return o
}

// ClientAccess answers, for one table location, what a client needs to
// open it on the store: the catalogs' one source of storage options.
type ClientAccess struct {
	S3   *S3
	Mode VendMode
}

// WithheldStatic is why a caller who may only read gets no keys from a
// floe that vends its own (--vend-credentials static): they cannot be
// scoped, and they write and delete.
const WithheldStatic = "withheld: this floe vends its own store keys (--vend-credentials static), which can write and delete, so a caller who may only read gets none; bring your own read-only keys, or ask the operator for --vend-credentials sts, whose keys are scoped to reading"

// credsFor parses a table location and vends for it when asked (vend nil:
// the server's mode decides; false: never), keys that may do what access
// says and no more. withheld is the sentence saying why a caller got no
// keys when floe had some to give.
func (a ClientAccess) credsFor(ctx context.Context, location string, access Access, vend *bool) (c *Credentials, withheld string, onStore bool, err error) {
	loc, err := Parse(location)
	if err != nil || !loc.Within(a.S3.root) {
		return nil, "", false, nil // not on this store: nothing to say
	}
	if vend != nil && !*vend {
		return nil, "", true, nil
	}
	if a.Mode == VendStatic && access != AccessWrite {
		return nil, WithheldStatic, true, nil
	}
	c, err = a.S3.Vend(ctx, a.Mode, loc, access)
	return c, "", true, err
}

// LanceStorageOptions is DescribeTable's storage_options for location;
// nil when the location is not on this store.
func (a ClientAccess) LanceStorageOptions(ctx context.Context, location string, access Access, vend *bool) (map[string]string, string, error) {
	c, withheld, ok, err := a.credsFor(ctx, location, access, vend)
	if !ok || err != nil {
		return nil, "", err
	}
	return a.S3.LanceStorageOptions(c), withheld, nil
}

// IcebergConfig is LoadTable's config for location; keys only when the
// client asked for vended credentials (X-Iceberg-Access-Delegation).
func (a ClientAccess) IcebergConfig(ctx context.Context, location string, access Access, vend bool) (map[string]string, string, error) {
	c, withheld, ok, err := a.credsFor(ctx, location, access, &vend)
	if !ok || err != nil {
		return nil, "", err
	}
	return a.S3.IcebergConfig(c), withheld, nil
}
