package iceworker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// TableRef is one Iceberg table as floe's index names it.
type TableRef struct {
	ID               string            `json:"id"`
	Bucket           string            `json:"bucket"`
	Namespace        []string          `json:"namespace"`
	Name             string            `json:"name"`
	Location         string            `json:"location"`
	MetadataLocation string            `json:"metadata-location"`
	Properties       map[string]string `json:"properties,omitempty"`
}

// Ident is the table's name for people: bucket.ns.table.
func (r TableRef) Ident() string {
	return strings.Join(append(append([]string{r.Bucket}, r.Namespace...), r.Name), ".")
}

func (r TableRef) identifier() table.Identifier {
	return append(append(table.Identifier{}, r.Namespace...), r.Name)
}

const (
	// requestTimeout bounds one catalog call: a catalog that accepts the
	// connection and goes quiet must not hold a slot forever.
	requestTimeout = 30 * time.Second
	// maxIndexPages bounds a listing so a catalog that keeps answering
	// with a page token cannot loop us forever.
	maxIndexPages = 1000
	// maxIndexBody bounds one index page's JSON (a page holds at most the
	// catalog's page size of entries with their properties).
	maxIndexBody = 32 << 20
	// maxCatalogs bounds the per-bucket REST clients kept; keys are short
	// lived, so only a handful are ever current. A guard, not a knob.
	maxCatalogs = 64
)

// Catalog reaches floe's Iceberg REST catalog with one API key.
type Catalog struct {
	url    string
	key    string
	client *http.Client

	mu   sync.Mutex
	rest map[string]*rest.Catalog // by bucket
}

// NewCatalog returns a client for the Iceberg REST at url.
func NewCatalog(url, key string) (*Catalog, error) {
	if url == "" {
		return nil, errors.New("no Iceberg REST URL in the cluster context: is floe serving --iceberg?")
	}
	return &Catalog{url: strings.TrimRight(url, "/"), key: key, client: &http.Client{Timeout: requestTimeout}, rest: map[string]*rest.Catalog{}}, nil
}

type indexPage struct {
	Tables        []TableRef `json:"tables"`
	NextPageToken string     `json:"next-page-token"`
}

// ListTables returns every Iceberg table the key may read, from floe's
// table index (GET /v1/floe/tables).
func (c *Catalog) ListTables(ctx context.Context) ([]TableRef, error) {
	var out []TableRef
	token := ""
	for range maxIndexPages {
		u := c.url + "/v1/floe/tables"
		if token != "" {
			u += "?pageToken=" + url.QueryEscape(token)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		resp, err := c.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("list Iceberg tables: %w", err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxIndexBody))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("list Iceberg tables: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("list Iceberg tables: the catalog answered %d: %s", resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 300)])))
		}
		var page indexPage
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("list Iceberg tables: the answer is not the index JSON: %w", err)
		}
		out = append(out, page.Tables...)
		if page.NextPageToken == "" {
			return out, nil
		}
		token = page.NextPageToken
	}
	return out, nil
}

// forBucket returns the iceberg-go REST client for one bucket (the REST
// catalog's warehouse).
func (c *Catalog) forBucket(ctx context.Context, bucket string) (*rest.Catalog, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.rest[bucket]; ok {
		return rc, nil
	}
	opts := []rest.Option{rest.WithWarehouseLocation(bucket)}
	if c.key != "" {
		opts = append(opts, rest.WithOAuthToken(c.key))
	}
	rc, err := rest.NewCatalog(ctx, "floe-"+bucket, c.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("open the Iceberg REST catalog of bucket %s: %w", bucket, err)
	}
	if len(c.rest) >= maxCatalogs {
		clear(c.rest)
	}
	c.rest[bucket] = rc
	return rc, nil
}

// Load reads a table's current metadata through the REST catalog.
func (c *Catalog) Load(ctx context.Context, ref TableRef) (*table.Table, error) {
	rc, err := c.forBucket(ctx, ref.Bucket)
	if err != nil {
		return nil, err
	}
	t, err := rc.LoadTable(ctx, ref.identifier())
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", ref.Ident(), err)
	}
	return t, nil
}

// Snapshot reads a table for observation only: from the metadata file the
// index named, without a REST round trip (a detection sweep reads every
// table; nothing read this way is ever committed). Without a metadata
// location, or with one on an object store (whose settings only the
// REST answer's config carries), it falls back to Load.
func (c *Catalog) Snapshot(ctx context.Context, ref TableRef) (*table.Table, error) {
	if ref.MetadataLocation == "" {
		return c.Load(ctx, ref)
	}
	if _, onS3 := s3Location(ref.MetadataLocation); onS3 {
		return c.Load(ctx, ref)
	}
	t, err := table.NewFromLocation(ctx, ref.identifier(), ref.MetadataLocation, iceio.LoadFSFunc(nil, ref.MetadataLocation), nil)
	if err != nil {
		return nil, fmt.Errorf("read the metadata of %s: %w", ref.Ident(), err)
	}
	return t, nil
}

// catalogs keeps one Catalog per (url, key) so detections and jobs reuse
// their REST clients.
type catalogs struct {
	mu sync.Mutex
	m  map[string]*Catalog
}

func (cs *catalogs) get(url, key string) (*Catalog, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	k := url + "\n" + key
	if c, ok := cs.m[k]; ok {
		return c, nil
	}
	c, err := NewCatalog(url, key)
	if err != nil {
		return nil, err
	}
	if cs.m == nil || len(cs.m) >= maxCatalogs {
		cs.m = map[string]*Catalog{}
	}
	cs.m[k] = c
	return c, nil
}
