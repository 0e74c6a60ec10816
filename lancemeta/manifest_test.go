package lancemeta

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/floe/floe/warehouse"
)

// testdata/v3.manifest is version 3 of a dataset LanceDB 0.31 wrote: 10
// rows, then 5 more (two fragments), then a delete of 3 rows.
func fixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/v3.manifest")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeLanceDBManifest(t *testing.T) {
	m, err := Decode(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 3 || m.Fragments != 2 || m.PhysicalRow != 15 || m.DeletedRows != 3 || m.Rows() != 12 {
		t.Fatalf("manifest = %+v", m)
	}
	got, _ := json.Marshal(m.Schema.Fields)
	want := `[{"name":"id","nullable":false,"type":{"type":"int64"}},` +
		`{"name":"label","nullable":true,"type":{"type":"utf8"}},` +
		`{"name":"vector","nullable":true,"type":{"type":"fixed_size_list","fields":[{"name":"item","nullable":true,"type":{"type":"float32"}}],"length":4}},` +
		`{"name":"meta","nullable":true,"type":{"type":"struct","fields":[{"name":"score","nullable":true,"type":{"type":"float64"}},{"name":"ok","nullable":true,"type":{"type":"bool"}}]}},` +
		`{"name":"tags","nullable":true,"type":{"type":"list","fields":[{"name":"item","nullable":true,"type":{"type":"utf8"}}]}},` +
		`{"name":"at","nullable":true,"type":{"type":"timestamp"}}]`
	if string(got) != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
}

// TestCorruptManifests: every damaged file is ErrCorrupt (or a read error),
// never a panic or a huge allocation.
func TestCorruptManifests(t *testing.T) {
	good := fixture(t)
	pos := binary.LittleEndian.Uint64(good[len(good)-16:])
	mutate := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	cases := []struct {
		name string
		file []byte
	}{
		{"empty", nil},
		{"footer only", good[len(good)-16:]},
		{"no magic", mutate(func(b []byte) []byte { b[len(b)-1] = 'X'; return b })},
		{"position past the end", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-16:], uint64(len(b)))
			return b
		})},
		{"negative position", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-16:], 1<<63)
			return b
		})},
		{"length mismatch", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[pos:], 7)
			return b
		})},
		{"garbage message", mutate(func(b []byte) []byte {
			for i := pos + 4; i < uint64(len(b)-16); i++ {
				b[i] = 0xff
			}
			return b
		})},
		{"truncated front", good[pos+2:]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.file)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestLatestThroughWarehouse finds the newest manifest by name and reads it
// with ranged reads.
func TestLatestThroughWarehouse(t *testing.T) {
	dir := t.TempDir()
	wh, _, err := warehouse.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	versions := filepath.Join(dir, "t.lance", "_versions")
	if err := os.MkdirAll(versions, 0o755); err != nil {
		t.Fatal(err)
	}
	// V2 names: u64::MAX - version, zero-padded; an older one is junk.
	if err := os.WriteFile(filepath.Join(versions, "18446744073709551612.manifest"), fixture(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(versions, "18446744073709551614.manifest"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, found, err := Latest(context.Background(), wh, filepath.Join(dir, "t.lance"))
	if err != nil || !found || m.Version != 3 {
		t.Fatalf("Latest = %+v, %v, %v", m, found, err)
	}
	_, found, err = Latest(context.Background(), wh, filepath.Join(dir, "empty.lance"))
	if err != nil || found {
		t.Fatalf("a dataset with no versions: found=%v err=%v", found, err)
	}
}
