package s3tables_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
)

// makeTables creates n Iceberg tables t0000… in bucket/ns through the catalog.
func (e *testEnv) makeTables(bucket string, ns []string, n int) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: bucket}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.CreateNamespace(ctx, bucket, ns, nil); err != nil {
		e.t.Fatal(err)
	}
	for i := range n {
		if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: bucket, Namespace: ns,
			Name: fmt.Sprintf("t%04d", i)}, Format: catalog.FormatIceberg}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestPagination walks 250 tables with the SDK's own paginator, with and
// without a namespace, and checks prefix filtering and page sizes.
func TestPagination(t *testing.T) {
	e := newTestEnv(t)
	e.makeTables("pages", []string{"ns"}, 250)
	c := e.client(e.rw)
	barn := aws.String(arnPrefix + "bucket/pages")
	cases := []struct {
		name      string
		in        sdk.ListTablesInput
		wantRows  int
		wantPages int
	}{
		{"namespace, 100 a page", sdk.ListTablesInput{TableBucketARN: barn, Namespace: aws.String("ns"), MaxTables: aws.Int32(100)}, 250, 3},
		{"whole bucket, 100 a page", sdk.ListTablesInput{TableBucketARN: barn, MaxTables: aws.Int32(100)}, 250, 3},
		{"namespace, default page", sdk.ListTablesInput{TableBucketARN: barn, Namespace: aws.String("ns")}, 250, 1},
		{"prefix t01, 7 a page", sdk.ListTablesInput{TableBucketARN: barn, Namespace: aws.String("ns"), Prefix: aws.String("t01"), MaxTables: aws.Int32(7)}, 100, 15},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			p := sdk.NewListTablesPaginator(c, &tc.in)
			seen := map[string]bool{}
			pages := 0
			prev := ""
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, tb := range out.Tables {
					name := aws.ToString(tb.Name)
					if seen[name] || name <= prev {
						t.Fatalf("page %d: %q repeated or out of order (after %q)", pages, name, prev)
					}
					seen[name], prev = true, name
				}
			}
			if len(seen) != tc.wantRows || pages != tc.wantPages {
				t.Fatalf("%d rows in %d pages, want %d in %d", len(seen), pages, tc.wantRows, tc.wantPages)
			}
		})
	}
	t.Run("bad token and page size", func(t *testing.T) {
		ctx := ctxT(t)
		if _, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: barn, ContinuationToken: aws.String("garbage!")}); err == nil {
			t.Fatal("a forged continuation token was accepted")
		}
		if _, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: barn, MaxTables: aws.Int32(1001)}); err == nil {
			t.Fatal("maxTables 1001 was accepted")
		}
	})
}

// TestListBucketsAndNamespaces pages buckets and namespaces with prefixes.
func TestListBucketsAndNamespaces(t *testing.T) {
	e := newTestEnv(t)
	ctx := ctxT(t)
	for i := range 12 {
		b := fmt.Sprintf("bkt-%02d", i)
		if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: b}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			for j := range 9 {
				if _, err := e.store.CreateNamespace(ctx, b, []string{fmt.Sprintf("ns%d", j)}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	c := e.client(e.ro)
	n, pages := 0, 0
	for p := sdk.NewListTableBucketsPaginator(c, &sdk.ListTableBucketsInput{Prefix: aws.String("bkt-"), MaxBuckets: aws.Int32(5)}); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, pages = n+len(out.TableBuckets), pages+1
	}
	if n != 12 || pages != 3 {
		t.Fatalf("buckets with prefix bkt-: %d in %d pages, want 12 in 3", n, pages)
	}
	n = 0
	for p := sdk.NewListNamespacesPaginator(c, &sdk.ListNamespacesInput{TableBucketARN: aws.String(arnPrefix + "bucket/bkt-00"), MaxNamespaces: aws.Int32(4)}); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(out.Namespaces)
	}
	if n != 9 {
		t.Fatalf("namespaces: %d, want 9", n)
	}
}

// TestListTablesSeesChanges: a listing read twice (the second from the page
// cache) changes as soon as a table is created, renamed or dropped, by this
// surface or by anything else on the catalog.
func TestListTablesSeesChanges(t *testing.T) {
	e := newTestEnv(t)
	e.makeTables("live", []string{"ns"}, 3)
	c := e.client(e.rw)
	ctx := ctxT(t)
	barn := aws.String(arnPrefix + "bucket/live")
	names := func() string {
		t.Helper()
		out, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: barn, Namespace: aws.String("ns")})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, tb := range out.Tables {
			s = append(s, aws.ToString(tb.Name))
		}
		return fmt.Sprint(s)
	}
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"unchanged", func() {}, "[t0000 t0001 t0002]"},
		{"created through the catalog", func() {
			if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "live", Namespace: []string{"ns"}, Name: "a"},
				Format: catalog.FormatIceberg}); err != nil {
				t.Fatal(err)
			}
		}, "[a t0000 t0001 t0002]"},
		{"renamed through S3 Tables", func() {
			if _, err := c.RenameTable(ctx, &sdk.RenameTableInput{TableBucketARN: barn, Namespace: aws.String("ns"), Name: aws.String("a"), NewName: aws.String("z")}); err != nil {
				t.Fatal(err)
			}
		}, "[t0000 t0001 t0002 z]"},
		{"dropped through the catalog", func() {
			if _, err := e.store.DropTable(ctx, catalog.TableRef{Bucket: "live", Namespace: []string{"ns"}, Name: "t0001"}); err != nil {
				t.Fatal(err)
			}
		}, "[t0000 t0002 z]"},
	}
	for _, st := range steps {
		st.change()
		for range 2 {
			if got := names(); got != st.want {
				t.Fatalf("%s: listing %s, want %s", st.name, got, st.want)
			}
		}
	}
}

// TestIssue23Item7ContinuationTokensNotIssuedRefused: every listing of the
// S3 Tables surface refuses tokens it did not issue (BadRequestException),
// the ones the attack sent to the Lance REST included, and a well-formed
// token standing for no cursor of ours.
func TestIssue23Item7ContinuationTokensNotIssuedRefused(t *testing.T) {
	e := newTestEnv(t)
	e.makeTables("pages", []string{"ns"}, 3)
	c := e.client(e.rw)
	barn := aws.String(arnPrefix + "bucket/pages")
	forged := base64.RawURLEncoding.EncodeToString([]byte("v1:\x00\xff"))
	for _, tok := range []string{"zzzz", "\x00", strings.Repeat("A", 100_000), forged} {
		ctx := ctxT(t)
		calls := map[string]func() error{
			"ListTableBuckets": func() error {
				_, err := c.ListTableBuckets(ctx, &sdk.ListTableBucketsInput{ContinuationToken: aws.String(tok)})
				return err
			},
			"ListNamespaces": func() error {
				_, err := c.ListNamespaces(ctx, &sdk.ListNamespacesInput{TableBucketARN: barn, ContinuationToken: aws.String(tok)})
				return err
			},
			"ListTables": func() error {
				_, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: barn, ContinuationToken: aws.String(tok)})
				return err
			},
		}
		for name, call := range calls {
			var bad *types.BadRequestException
			if err := call(); !errors.As(err, &bad) {
				t.Errorf("%s with token %.20q: %v; want BadRequestException", name, tok, err)
			}
		}
	}
}
