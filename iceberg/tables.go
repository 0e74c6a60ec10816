// Package iceberg is floe's Iceberg format library: the table metadata
// model, reading metadata, manifests and Parquet data, the commit builder
// (requirements and updates), and the table operations over floe's catalog
// (create, load, commit, register, rename, drop). It knows nothing of HTTP:
// the REST catalog (package icebergrest) and the console call it and map
// its *fault.Error to their own answers.
package iceberg

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
)

// Config configures the table operations.
type Config struct {
	Store  *catalog.Store
	Logger *slog.Logger
}

// Tables runs Iceberg table operations against floe's catalog and the
// warehouse. It is safe for concurrent use.
type Tables struct {
	store *catalog.Store
	log   *slog.Logger
	files fileStore
	cache *metadataCache
	// manifests keeps decoded manifests for scan planning.
	manifests *manifestCache
	now       func() time.Time
}

// New builds Tables.
func New(cfg Config) *Tables {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Tables{
		store:     cfg.Store,
		log:       log,
		files:     warehouseFiles{cfg.Store.Storage()},
		cache:     newMetadataCache(),
		manifests: newManifestCache(),
		now:       time.Now,
	}
}

// Loaded is a table's metadata as a load, create or commit answers it.
type Loaded struct {
	// MetadataLocation is the current metadata file; empty for a staged
	// create, which wrote nothing.
	MetadataLocation string
	// Metadata is that file's JSON, as the REST spec returns it.
	Metadata json.RawMessage
	md       *tableMetadata
}

// metadataCache keeps parsed metadata files by location. Metadata files are
// never rewritten (each commit writes a new one), so an entry never goes stale.
type metadataCache struct {
	mu sync.Mutex
	m  map[string]*cachedMetadata
}

type cachedMetadata struct {
	raw []byte
	md  *tableMetadata
}

// metadataCacheCap bounds the cache; past it the cache starts over, which
// costs one re-read per hot table.
const metadataCacheCap = 512

func newMetadataCache() *metadataCache { return &metadataCache{m: map[string]*cachedMetadata{}} }

func (c *metadataCache) get(loc string) *cachedMetadata {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[loc]
}

func (c *metadataCache) put(loc string, e *cachedMetadata) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= metadataCacheCap {
		clear(c.m)
	}
	c.m[loc] = e
}

// readMetadata returns a table's metadata at a location, from the cache when
// it can.
func (s *Tables) readMetadata(ctx context.Context, loc string) (*cachedMetadata, error) {
	if e := s.cache.get(loc); e != nil {
		return e, nil
	}
	e, err := readMetadataFile(s.files, loc)
	if err != nil {
		return nil, err
	}
	s.cache.put(loc, e)
	return e, nil
}

func readMetadataFile(fs fileStore, loc string) (*cachedMetadata, error) {
	raw, err := fs.ReadFile(loc)
	if err != nil {
		return nil, err
	}
	var md tableMetadata
	if err := json.Unmarshal(raw, &md); err != nil {
		return nil, err
	}
	return &cachedMetadata{raw: raw, md: &md}, nil
}

// Location is the table location the metadata names ("" for none).
func (l *Loaded) Location() string {
	if l.md == nil {
		return ""
	}
	return l.md.Location
}
