package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCreateBucket(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	b, err := s.CreateBucket(ctx, CreateBucketInput{Name: "lake", Format: FormatLance, Owner: "ana", Tags: map[string]string{"team": "data"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.ARN != "arn:floe:s3tables:local:000000000000:bucket/lake" {
		t.Errorf("ARN %q", b.ARN)
	}
	if !exists(t, filepath.Join(s.Warehouse(), "lake")) {
		t.Error("bucket directory not created")
	}
	got, err := s.GetBucket(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != FormatLance || got.Owner != "ana" || got.Tags["team"] != "data" || got.CreatedAt.IsZero() {
		t.Errorf("GetBucket = %+v", got)
	}

	cases := []struct {
		name string
		in   CreateBucketInput
		kind error
	}{
		{"taken, same format", CreateBucketInput{Name: "lake", Format: FormatLance}, ErrAlreadyExists},
		{"taken, other format", CreateBucketInput{Name: "lake", Format: FormatIceberg}, ErrAlreadyExists},
		{"bad name", CreateBucketInput{Name: "Lake"}, ErrInvalid},
		{"bad format", CreateBucketInput{Name: "other", Format: "DELTA"}, ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateBucket(ctx, tc.in)
			wantKind(t, err, tc.kind)
		})
	}
	t.Run("unset format", func(t *testing.T) {
		b := mustBucket(t, s, "legacy", FormatUnset)
		if b.Format != FormatUnset {
			t.Errorf("format %q", b.Format)
		}
	})
	t.Run("missing bucket", func(t *testing.T) {
		_, err := s.GetBucket(ctx, "nope")
		wantKind(t, err, ErrNotFound)
	})
}

func TestCreateBucketRace(t *testing.T) {
	s := newTestStore(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.CreateBucket(context.Background(), CreateBucketInput{Name: "race", Format: FormatIceberg})
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrAlreadyExists):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creations succeeded, want exactly 1", ok)
	}
}

func TestListBucketsCountsAndPages(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	for i := range 5 {
		name := fmt.Sprintf("b%d-lake", i)
		mustBucket(t, s, name, FormatUnset)
		mustNamespace(t, s, name, "ns")
		for j := range i {
			mustTable(t, s, TableRef{Bucket: name, Namespace: []string{"ns"}, Name: fmt.Sprintf("t%d", j)}, FormatIceberg)
		}
	}
	var seen []string
	after := ""
	for page := 0; ; page++ {
		items, next, err := s.ListBuckets(ctx, ListOptions{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range items {
			seen = append(seen, b.Name)
			var want int
			fmt.Sscanf(b.Name, "b%d-lake", &want)
			if b.TableCount != want {
				t.Errorf("%s TableCount = %d, want %d", b.Name, b.TableCount, want)
			}
		}
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatal("pagination does not end")
		}
		after = next
	}
	if got := strings.Join(seen, ","); got != "b0-lake,b1-lake,b2-lake,b3-lake,b4-lake" {
		t.Errorf("listed %s", got)
	}
}

func TestDeleteBucket(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "full", FormatLance)
	mustNamespace(t, s, "full", "a")
	mustNamespace(t, s, "full", "a", "b")
	tb := mustTable(t, s, TableRef{Bucket: "full", Namespace: []string{"a", "b"}, Name: "t"}, FormatLance)
	data := writeData(t, tb.Location)

	t.Run("non-empty refuses", func(t *testing.T) {
		ce := wantKind(t, s.DeleteBucket(ctx, "full", false), ErrNotEmpty)
		if !strings.Contains(ce.Message, "cascade") {
			t.Errorf("message %q does not say what to do", ce.Message)
		}
		if !exists(t, data) {
			t.Error("refused delete removed data")
		}
	})
	t.Run("cascade deletes entries and data", func(t *testing.T) {
		if err := s.DeleteBucket(ctx, "full", true); err != nil {
			t.Fatal(err)
		}
		if exists(t, tb.Location) || exists(t, filepath.Join(s.Warehouse(), "full")) {
			t.Error("cascade left data behind")
		}
		_, err := s.GetBucket(ctx, "full")
		wantKind(t, err, ErrNotFound)
		_, err = s.GetTableByID(ctx, tb.ID)
		wantKind(t, err, ErrNotFound)
	})
	t.Run("empty bucket", func(t *testing.T) {
		mustBucket(t, s, "empty", FormatUnset)
		if err := s.DeleteBucket(ctx, "empty", false); err != nil {
			t.Fatal(err)
		}
		if exists(t, filepath.Join(s.Warehouse(), "empty")) {
			t.Error("bucket directory left")
		}
	})
	t.Run("missing", func(t *testing.T) {
		wantKind(t, s.DeleteBucket(ctx, "gone", false), ErrNotFound)
	})
}
