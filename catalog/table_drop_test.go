package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/floe/floe/fault"
)

// TestDropTableAtVersionIsAtomic: S3 Tables' DeleteTable checked the
// versionToken, then dropped in a second step, so an update landing between
// the two was dropped unseen (issue 16). The token is now checked in the
// drop's own transaction.
func TestDropTableAtVersionIsAtomic(t *testing.T) {
	ctx := context.Background()
	t.Run("an update after the token was read makes the drop fail and keeps the update", func(t *testing.T) {
		s := lakeFixture(t)
		read := mustTable(t, s, ref("ice-b", "orders"), FormatIceberg)
		updated, err := s.CommitTable(ctx, read.ID, read.VersionToken, "s3://x/metadata/00001.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		ce := wantKind(t, func() error {
			_, err := s.DropTableAtVersion(ctx, ref("ice-b", "orders"), read.VersionToken)
			return err
		}(), fault.Conflict)
		if ce.Field != "version_token" || ce.Message == "" {
			t.Fatalf("error %+v: want a version_token conflict with a sentence", ce)
		}
		cur, err := s.GetTableByID(ctx, read.ID)
		if err != nil || cur.MetadataLocation != updated.MetadataLocation {
			t.Fatalf("after the refused drop: %+v %v; want the update kept", cur, err)
		}
		if _, err := s.DropTableAtVersion(ctx, ref("ice-b", "orders"), updated.VersionToken); err != nil {
			t.Fatalf("drop at the current token: %v", err)
		}
		if _, err := s.GetTableByID(ctx, read.ID); !errors.Is(err, fault.NotFound) {
			t.Fatalf("table still there after its drop: %v", err)
		}
	})
	t.Run("an empty token drops unconditionally", func(t *testing.T) {
		s := lakeFixture(t)
		tb := mustTable(t, s, ref("ice-b", "orders"), FormatIceberg)
		if _, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00001.json", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DropTableAtVersion(ctx, ref("ice-b", "orders"), ""); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("racing a commit with a drop on the same token: exactly one wins", func(t *testing.T) {
		s := lakeFixture(t)
		for i := range 20 {
			name := fmt.Sprintf("t%d", i)
			tb := mustTable(t, s, ref("ice-b", name), FormatIceberg)
			var wg sync.WaitGroup
			var commitErr, dropErr error
			wg.Go(func() {
				_, commitErr = s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00001.json", nil)
			})
			wg.Go(func() {
				_, dropErr = s.DropTableAtVersion(ctx, ref("ice-b", name), tb.VersionToken)
			})
			wg.Wait()
			switch {
			case commitErr == nil && dropErr == nil:
				t.Fatalf("round %d: both the commit and the drop succeeded on one token: the commit was lost", i)
			case commitErr == nil:
				wantKind(t, dropErr, fault.Conflict)
				if cur, err := s.GetTableByID(ctx, tb.ID); err != nil || cur.MetadataLocation != "s3://x/metadata/00001.json" {
					t.Fatalf("round %d: the winning commit is gone: %+v %v", i, cur, err)
				}
			case dropErr == nil:
				wantKind(t, commitErr, fault.NotFound)
			default:
				t.Fatalf("round %d: neither won: commit %v, drop %v", i, commitErr, dropErr)
			}
		}
	})
}
