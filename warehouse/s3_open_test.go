package warehouse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// Open prefetches a large file's head and, on the first read near its
// end, its tail; every read answers the object's bytes whichever path
// serves it, an empty object opens, and a file replaced after Open fails a
// read outside what was prefetched instead of mixing versions.
func TestS3OpenPrefetch(t *testing.T) {
	w, _ := newS3(t)
	ctx := t.Context()
	tbl := w.Root().MustJoin("b", "ns", "t")
	const size = s3OpenPrefetch + 3*s3TailPrefetch + 123
	body := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	big := tbl.MustJoin("data", "big.parquet")
	if err := w.WriteFile(ctx, big, body); err != nil {
		t.Fatal(err)
	}
	f, err := w.Open(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != size {
		t.Fatalf("size %d, want %d", f.Size(), size)
	}
	cases := []struct {
		name   string
		off, n int64
	}{
		{"inside the head", 100, 1000},
		{"across the head's end", s3OpenPrefetch - 10, 20},
		{"middle", s3OpenPrefetch + 1000, 4096},
		{"footer length", size - 8, 8},
		{"footer", size - 5000, 4992},
		{"across the tail's start", size - s3TailPrefetch - 10, 20},
		{"past the end", size - 4, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := make([]byte, c.n)
			n, err := f.ReadAt(p, c.off)
			want := body[c.off:min(c.off+c.n, size)]
			if !bytes.Equal(p[:n], want) {
				t.Fatalf("ReadAt(%d, %d) read %d bytes that differ from the object", c.off, c.n, n)
			}
			if short := c.off+c.n > size; (err == io.EOF) != short || (err != nil && err != io.EOF) {
				t.Fatalf("ReadAt(%d, %d) err = %v; want EOF only when short", c.off, c.n, err)
			}
		})
	}

	empty := tbl.MustJoin("empty")
	if err := w.WriteFile(ctx, empty, nil); err != nil {
		t.Fatal(err)
	}
	if e, err := w.Open(ctx, empty); err != nil || e.Size() != 0 {
		t.Fatalf("Open of an empty object = %v, %v", e, err)
	} else if n, err := e.ReadAt(make([]byte, 1), 0); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt of an empty object = %d, %v; want EOF", n, err)
	}

	g, err := w.Open(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	replaced := bytes.Repeat([]byte{'z'}, size)
	if err := w.WriteFile(ctx, big, replaced); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ReadAt(make([]byte, 10), s3OpenPrefetch+50); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("read of a replaced file = %v; want ErrUnavailable (changed while read)", err)
	}
}
