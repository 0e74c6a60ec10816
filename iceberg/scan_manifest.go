package iceberg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hamba/avro/v2/ocf"
)

// What planning reads of a snapshot's manifest list and manifests: the
// parts the spec defines for pruning (partition summaries, partition
// tuples, column metrics) and everything a file scan task carries.

// listEntry is one manifest of a manifest list.
type listEntry struct {
	Path           string `avro:"manifest_path"`
	Length         int64  `avro:"manifest_length"`
	SpecID         int    `avro:"partition_spec_id"`
	Content        int    `avro:"content"` // 0 data, 1 deletes
	SequenceNumber int64  `avro:"sequence_number"`
	AddedFiles     int    `avro:"added_files_count"`
	ExistingFiles  int    `avro:"existing_files_count"`
	// v1 lists name the counts differently and may leave them out.
	AddedFilesV1    *int           `avro:"added_data_files_count"`
	ExistingFilesV1 *int           `avro:"existing_data_files_count"`
	Partitions      []fieldSummary `avro:"partitions"`
}

// files is how many live entries the manifest holds, as its list says;
// -1 when the list does not say.
func (m listEntry) files() int {
	switch {
	case m.AddedFiles > 0 || m.ExistingFiles > 0:
		return m.AddedFiles + m.ExistingFiles
	case m.AddedFilesV1 != nil && m.ExistingFilesV1 != nil:
		return *m.AddedFilesV1 + *m.ExistingFilesV1
	}
	return -1
}

// fieldSummary bounds one partition field over a manifest's files.
type fieldSummary struct {
	ContainsNull bool   `avro:"contains_null"`
	ContainsNaN  *bool  `avro:"contains_nan"`
	Lower        []byte `avro:"lower_bound"`
	Upper        []byte `avro:"upper_bound"`
}

// planEntry is one entry of a manifest.
type planEntry struct {
	Status             int      `avro:"status"` // 0 existing, 1 added, 2 deleted
	SnapshotID         *int64   `avro:"snapshot_id"`
	SequenceNumber     *int64   `avro:"sequence_number"`
	FileSequenceNumber *int64   `avro:"file_sequence_number"`
	File               planFile `avro:"data_file"`
}

// planFile is a manifest entry's data or delete file.
type planFile struct {
	Content            int            `avro:"content"` // 0 data, 1 position deletes, 2 equality deletes
	FilePath           string         `avro:"file_path"`
	FileFormat         string         `avro:"file_format"`
	Partition          map[string]any `avro:"partition"`
	RecordCount        int64          `avro:"record_count"`
	FileSize           int64          `avro:"file_size_in_bytes"`
	ColumnSizes        []countEntry   `avro:"column_sizes"`
	ValueCounts        []countEntry   `avro:"value_counts"`
	NullCounts         []countEntry   `avro:"null_value_counts"`
	NaNCounts          []countEntry   `avro:"nan_value_counts"`
	LowerBounds        []boundEntry   `avro:"lower_bounds"`
	UpperBounds        []boundEntry   `avro:"upper_bounds"`
	KeyMetadata        []byte         `avro:"key_metadata"`
	SplitOffsets       []int64        `avro:"split_offsets"`
	EqualityIDs        []int          `avro:"equality_ids"`
	SortOrderID        *int           `avro:"sort_order_id"`
	FirstRowID         *int64         `avro:"first_row_id"`
	ReferencedDataFile *string        `avro:"referenced_data_file"`
	ContentOffset      *int64         `avro:"content_offset"`
	ContentSize        *int64         `avro:"content_size_in_bytes"`
}

// countEntry and boundEntry are the spec's int-keyed maps, stored in Avro
// as arrays of key/value records.
type countEntry struct {
	Key   int   `avro:"key"`
	Value int64 `avro:"value"`
}

type boundEntry struct {
	Key   int    `avro:"key"`
	Value []byte `avro:"value"`
}

// Caps on what one plan reads, so a table whose files a client wrote
// cannot make planning cost without bound.
const (
	// maxPlanManifests bounds the manifests of one snapshot planning reads
	// the list of; real tables keep hundreds, rewrite-manifests keeps it so.
	maxPlanManifests = 100_000
	// maxManifestEntries bounds the entries read from one manifest: a
	// manifest past a million entries is one nobody should scan unpruned.
	maxManifestEntries = 1_000_000
	// maxManifestBytes bounds one manifest, read whole: writers aim at 8
	// MiB (Java's commit.manifest.target-size-bytes); 64 MiB is eight of
	// those, tens of thousands of entries with column metrics.
	maxManifestBytes = 64 << 20
)

// readListEntries reads a snapshot's manifest list.
func readListEntries(fs fileStore, loc, tableLoc string) ([]listEntry, error) {
	return readAvroCapped[listEntry](fs, loc, tableLoc, maxPlanManifests)
}

// manifestCacheEntries bounds the manifest entries kept decoded between
// plans (an entry costs about a kilobyte): manifests are never rewritten,
// so a table planned again costs its pruning, not its decoding. Past the
// bound the cache starts over; a manifest of more than half of it is never
// kept.
const manifestCacheEntries = 50_000

// manifestCache keeps decoded manifests by location.
type manifestCache struct {
	mu      sync.Mutex
	m       map[string][]planEntry
	entries int
}

func newManifestCache() *manifestCache { return &manifestCache{m: map[string][]planEntry{}} }

func (c *manifestCache) get(loc string) ([]planEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, ok := c.m[loc]
	return es, ok
}

func (c *manifestCache) put(loc string, es []planEntry) {
	if len(es) > manifestCacheEntries/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries+len(es) > manifestCacheEntries {
		clear(c.m)
		c.entries = 0
	}
	if _, ok := c.m[loc]; !ok {
		c.m[loc] = es
		c.entries += len(es)
	}
}

// readManifest calls each for every entry of one manifest in file order
// (an error from each stops it), from the cache when the manifest was
// read before. Entries are shared: each must not change them.
func (s *Tables) readManifest(loc, tableLoc string, each func(*planEntry) error) error {
	if es, ok := s.manifests.get(loc); ok {
		for i := range es {
			if err := each(&es[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var es []planEntry
	if err := decodeManifest(s.files, loc, tableLoc, func(e *planEntry) error {
		es = append(es, *e)
		return nil
	}); err != nil {
		return err
	}
	s.manifests.put(loc, es)
	for i := range es {
		if err := each(&es[i]); err != nil {
			return err
		}
	}
	return nil
}

// decodeManifest decodes the entries of one manifest, calling each for
// every entry in file order; an error from each stops the read.
func decodeManifest(fs fileStore, loc, tableLoc string, each func(*planEntry) error) error {
	if !within(loc, tableLoc) {
		return fmt.Errorf("manifest %s lies outside the table location", loc)
	}
	// Read whole: the decoder's small reads cost a call each on storage.
	f, err := fs.Open(loc)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Size() > maxManifestBytes {
		return fmt.Errorf("manifest %s is %d bytes, more than the %d planning reads", baseName(loc), f.Size(), maxManifestBytes)
	}
	raw := make([]byte, f.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return fmt.Errorf("manifest %s: %w", baseName(loc), err)
	}
	dec, err := ocf.NewDecoder(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("manifest %s: %w", baseName(loc), err)
	}
	n := 0
	for dec.HasNext() {
		if n++; n > maxManifestEntries {
			return fmt.Errorf("manifest %s has more than %d entries", baseName(loc), maxManifestEntries)
		}
		var e planEntry
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("manifest %s: %w", baseName(loc), err)
		}
		if err := each(&e); err != nil {
			return err
		}
	}
	if err := dec.Error(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("manifest %s: %w", baseName(loc), err)
	}
	return nil
}

// readAvroCapped is readAvro with a cap on the records read.
func readAvroCapped[T any](fs fileStore, loc, tableLoc string, limit int) ([]T, error) {
	if !within(loc, tableLoc) {
		return nil, fmt.Errorf("%s lies outside the table location", loc)
	}
	f, err := fs.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		return nil, err
	}
	var out []T
	for dec.HasNext() {
		if len(out) >= limit {
			return nil, fmt.Errorf("%s has more than %d entries", baseName(loc), limit)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := dec.Error(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}
