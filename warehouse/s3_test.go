package warehouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floe/floe/internal/s3test"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// newS3 returns a warehouse at s3://<fresh bucket>/wh on the shared real store.
func newS3(t testing.TB) (*Warehouse, *S3) {
	t.Helper()
	st := s3test.Require(t)
	return newS3On(t, st, st.Bucket(t))
}

func newS3On(t testing.TB, st *s3test.Store, bucket string) (*Warehouse, *S3) {
	t.Helper()
	root := mustParse(t, "s3://"+bucket+"/wh")
	w, b, err := NewS3(t.Context(), root, S3Config{
		Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}

// TestBackendsAgree runs one specification against the local disk and the
// real S3 store: the catalogs must not be able to tell them apart.
func TestBackendsAgree(t *testing.T) {
	backends := map[string]func(t *testing.T) *Warehouse{
		"local": func(t *testing.T) *Warehouse {
			w, l, err := NewLocal(filepath.Join(t.TempDir(), "wh"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return w
		},
		"s3": func(t *testing.T) *Warehouse { w, _ := newS3(t); return w },
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) { backendSpec(t, open(t)) })
	}
}

func backendSpec(t *testing.T, w *Warehouse) {
	ctx := t.Context()
	tbl := w.Root().MustJoin("b", "ns", "t")
	twin := w.Root().MustJoin("b", "ns", "t2") // shares tbl's name as a string prefix
	copies := w.Root().MustJoin("copies")      // CopyExclusive's files, apart from tbl's
	meta := tbl.MustJoin("metadata", "00000.json")
	data := tbl.MustJoin("data", "part-0.parquet")
	body := []byte("0123456789abcdef")

	steps := []struct {
		name string
		do   func() error
	}{
		{"exclusive create", func() error { return w.CreateExclusive(ctx, meta, []byte("{}")) }},
		{"second exclusive create is ErrExist", func() error {
			if err := w.CreateExclusive(ctx, meta, []byte("{}")); !errors.Is(err, ErrExist) {
				return fmt.Errorf("got %v, want ErrExist", err)
			}
			return nil
		}},
		{"exclusive copy", func() error {
			_, err := w.CopyExclusive(ctx, meta, copies.MustJoin("copy.json"), "")
			if err != nil {
				return err
			}
			got, err := w.ReadFile(ctx, copies.MustJoin("copy.json"))
			if err != nil || string(got) != "{}" {
				return fmt.Errorf("copy holds %q, %v", got, err)
			}
			return nil
		}},
		{"copy onto an existing file is ErrExist and leaves it", func() error {
			if err := w.CreateExclusive(ctx, copies.MustJoin("taken.json"), []byte("mine")); err != nil {
				return err
			}
			if _, err := w.CopyExclusive(ctx, meta, copies.MustJoin("taken.json"), ""); !errors.Is(err, ErrExist) {
				return fmt.Errorf("got %v, want ErrExist", err)
			}
			if got, _ := w.ReadFile(ctx, copies.MustJoin("taken.json")); string(got) != "mine" {
				return fmt.Errorf("the existing file now holds %q", got)
			}
			return nil
		}},
		{"copy of a missing file is ErrNotExist", func() error {
			if _, err := w.CopyExclusive(ctx, copies.MustJoin("nope"), copies.MustJoin("x.json"), ""); !errors.Is(err, ErrNotExist) {
				return fmt.Errorf("got %v, want ErrNotExist", err)
			}
			return nil
		}},
		{"write and replace", func() error {
			if err := w.WriteFile(ctx, data, []byte("old")); err != nil {
				return err
			}
			if err := w.WriteFile(ctx, data, body); err != nil {
				return err
			}
			return w.WriteFile(ctx, twin.MustJoin("keep"), []byte("k"))
		}},
		{"read whole", func() error {
			got, err := w.ReadFile(ctx, data)
			if err != nil || string(got) != string(body) {
				return fmt.Errorf("got %q, %v", got, err)
			}
			return nil
		}},
		{"ranged reads", func() error {
			f, err := w.Open(ctx, data)
			if err != nil {
				return err
			}
			defer f.Close()
			if f.Size() != int64(len(body)) {
				return fmt.Errorf("size %d, want %d", f.Size(), len(body))
			}
			for _, c := range []struct {
				off, n int
				want   string
				eof    bool
			}{{0, 4, "0123", false}, {10, 6, "abcdef", false}, {12, 8, "cdef", true}, {16, 1, "", true}} {
				p := make([]byte, c.n)
				n, err := f.ReadAt(p, int64(c.off))
				if string(p[:n]) != c.want || (err == io.EOF) != c.eof || (err != nil && err != io.EOF) {
					return fmt.Errorf("ReadAt(%d, %d) = %q, %v; want %q (EOF %v)", c.off, c.n, p[:n], err, c.want, c.eof)
				}
			}
			return nil
		}},
		{"list is recursive and has no directories", func() error {
			var got []string
			if err := w.List(ctx, tbl, func(e Entry) error { got = append(got, e.Loc.String()); return nil }); err != nil {
				return err
			}
			slices.Sort(got)
			if want := []string{data.String(), meta.String()}; !slices.Equal(got, want) {
				return fmt.Errorf("got %v, want %v", got, want)
			}
			return nil
		}},
		{"missing things", func() error {
			if _, err := w.ReadFile(ctx, tbl.MustJoin("missing")); !errors.Is(err, ErrNotExist) {
				return fmt.Errorf("ReadFile missing = %v, want ErrNotExist", err)
			}
			if _, err := w.Open(ctx, tbl.MustJoin("missing")); !errors.Is(err, ErrNotExist) {
				return fmt.Errorf("Open missing = %v, want ErrNotExist", err)
			}
			return w.List(ctx, tbl.MustJoin("missing"), func(Entry) error { return errors.New("listed something") })
		}},
		{"exists for file, prefix and nothing", func() error {
			for loc, want := range map[Location]bool{meta: true, tbl: true, tbl.MustJoin("metadata"): true, tbl.MustJoin("nope"): false} {
				if got, err := w.Exists(ctx, loc); got != want || err != nil {
					return fmt.Errorf("Exists(%s) = %v, %v; want %v", loc, got, err, want)
				}
			}
			return nil
		}},
		{"delete prefix spares the twin", func() error {
			if err := w.DeletePrefix(ctx, tbl); err != nil {
				return err
			}
			if ok, err := w.Exists(ctx, tbl); ok || err != nil {
				return fmt.Errorf("Exists after DeletePrefix = %v, %v", ok, err)
			}
			if got, err := w.ReadFile(ctx, twin.MustJoin("keep")); err != nil || string(got) != "k" {
				return fmt.Errorf("the twin table lost its file: %q, %v", got, err)
			}
			return w.Delete(ctx, meta) // missing is fine
		}},
		{"the root is never deleted", func() error {
			if err := w.DeletePrefix(ctx, w.Root()); !errors.Is(err, ErrOutside) {
				return fmt.Errorf("DeletePrefix(root) = %v, want ErrOutside", err)
			}
			return nil
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
}

// A store written by other tools may hold "dir/" markers (console-made
// folders); listing skips them rather than inventing files. (SeaweedFS folds
// "a//b" keys to "a/b", so keys with empty segments cannot be made here.)
func TestS3ListSkipsForeignKeys(t *testing.T) {
	st := s3test.Require(t)
	bucket := st.Bucket(t)
	w, _ := newS3On(t, st, bucket)
	c := st.Client()
	for _, k := range []string{"wh/t/dir/", "wh/t/ok"} {
		if _, err := c.PutObject(t.Context(), putInput(bucket, k)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := w.List(t.Context(), w.Root().MustJoin("t"), func(e Entry) error { got = append(got, e.Loc.String()); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"s3://" + bucket + "/wh/t/ok"}; !slices.Equal(got, want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
}

// Drop of a table deletes across several DeleteObjects batches.
func TestS3DeletePrefixManyObjects(t *testing.T) {
	w, _ := newS3(t)
	ctx := t.Context()
	tbl := w.Root().MustJoin("b", "ns", "big.lance")
	const n = 2*s3ListPage + 7 // three list pages, nine delete batches
	if err := putMany(ctx, w, tbl, n); err != nil {
		t.Fatal(err)
	}
	count := 0
	w.List(ctx, tbl, func(Entry) error { count++; return nil })
	if count != n {
		t.Fatalf("listed %d objects, want %d", count, n)
	}
	if err := w.DeletePrefix(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Exists(ctx, tbl); ok || err != nil {
		t.Fatalf("after DeletePrefix Exists = %v, %v", ok, err)
	}
}

// putMany writes n small objects below prefix with a few writers.
func putMany(ctx context.Context, w *Warehouse, prefix Location, n int) error {
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := range writers {
		wg.Go(func() {
			for i := g; i < n; i += writers {
				loc := prefix.MustJoin("data", fmt.Sprintf("f%05d", i))
				if err := w.WriteFile(ctx, loc, []byte("x")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// Faults name the store and what to do; none is a bare SDK error.
func TestS3Faults(t *testing.T) {
	st := s3test.Require(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	bucket := st.Bucket(t)

	cases := []struct {
		name     string
		cfg      S3Config
		bucket   string
		kind     error
		sentence string
	}{
		{"nothing listens", S3Config{Endpoint: closed, AccessKey: "a", SecretKey: "b", PathStyle: true}, bucket,
			ErrUnavailable, "cannot be reached"},
		{"wrong secret", S3Config{Endpoint: st.Endpoint, AccessKey: st.AccessKey, SecretKey: "wrong", PathStyle: true}, bucket,
			ErrPermission, "refused to list"},
		{"no such bucket", S3Config{Endpoint: st.Endpoint, AccessKey: st.AccessKey, SecretKey: st.SecretKey, PathStyle: true}, "floe-missing",
			ErrNotExist, `has no bucket "floe-missing"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := OpenS3(t.Context(), mustParse(t, "s3://"+c.bucket+"/wh"), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = b.Check(t.Context())
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.sentence) {
				t.Fatalf("Check = %v, want %v saying %q", err, c.kind, c.sentence)
			}
			if c.cfg.Endpoint != "" && !strings.Contains(err.Error(), c.cfg.Endpoint) {
				t.Fatalf("Check = %q does not name the endpoint %s", err, c.cfg.Endpoint)
			}
		})
	}
	t.Run("the real store passes", func(t *testing.T) {
		_, b := newS3On(t, st, bucket)
		if err := b.Check(t.Context()); err != nil {
			t.Fatal(err)
		}
		var left []string
		b.List(t.Context(), b.Root(), func(e Entry) error { left = append(left, e.Loc.String()); return nil })
		if len(left) != 0 {
			t.Fatalf("Check left objects behind: %v", left)
		}
	})
}

// A store that accepts every PUT, conditional or not, fails the start-up
// probe with a sentence. (A stand-in is the only way to get such a store;
// the real one honours If-None-Match.)
func TestS3CheckDetectsIgnoredIfNoneMatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0"?><ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>`)
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			io.Copy(io.Discard, r.Body)
		}
	}))
	defer srv.Close()
	b, err := OpenS3(t.Context(), mustParse(t, "s3://bkt/wh"), S3Config{Endpoint: srv.URL, AccessKey: "a", SecretKey: "b", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Check(t.Context())
	if !errors.Is(err, ErrNoConditionalPut) || !strings.Contains(err.Error(), "If-None-Match") {
		t.Fatalf("Check = %v, want ErrNoConditionalPut naming If-None-Match", err)
	}
}

func putInput(bucket, key string) *s3.PutObjectInput {
	return &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x")}
}

// TestS3CopyExclusiveETag: a copy names its source by entity tag; a source
// rewritten since is ErrChanged, and the destination is not made.
func TestS3CopyExclusiveETag(t *testing.T) {
	w, _ := newS3(t)
	ctx := t.Context()
	src, dst := w.Root().MustJoin("t", "staged"), w.Root().MustJoin("t", "final")
	etag, err := w.CreateExclusiveETag(ctx, src, []byte("first"))
	if err != nil || etag == "" {
		t.Fatalf("create = %q, %v; want an entity tag", etag, err)
	}
	if err := w.WriteFile(ctx, src, []byte("second")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CopyExclusive(ctx, src, dst, etag); !errors.Is(err, ErrChanged) {
		t.Fatalf("copy of a rewritten source = %v, want ErrChanged", err)
	}
	if ok, _ := w.Exists(ctx, dst); ok {
		t.Fatal("the refused copy made its destination")
	}
	if !w.CopiesInPlace() {
		t.Error("S3 does not say it copies in place")
	}
}
